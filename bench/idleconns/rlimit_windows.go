package main

// raiseFileLimit does nothing: Windows has no open-files limit to lift.
func raiseFileLimit() {}
