// Package machinecost measures, on the machine loadlab runs on, the serial
// pool manager's costs the model assumes (model.Costs: how much longer a
// dial and a close take after the manager slept, model.Wake, and its
// work per message), and keeps them per machine.
//
// The model's default costs were measured on one reference machine (a
// shared 2-core VM). A slower machine starts and dismisses workers more
// slowly, which moves the knee of a pool whose overflow workers come and
// go. Turnovers is the measurement, through the real pool's serial
// manager (bench/model -wake prints it as a table); Measure makes it a
// short probe (under a second) and turns it into model.Costs; For
// caches the result under the user's cache directory, keyed by the CPU
// model, the core count and the kernel, so it is measured once per
// machine.
package machinecost
