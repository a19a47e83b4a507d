#!/bin/bash
# Builds the Kubernetes control plane the integration test runs
# (kube-apiserver, kube-controller-manager, kubectl) from the published
# k8s.io/kubernetes source module, once, into a cache folder that later
# runs reuse. Prints the folder on its last line.
#
#   KUBE_VERSION (default 1.37.2)   KUBE_CACHE (default ~/.cache/loadlab/kube/vVERSION)
#
# The module is published without its ./staging tree, so its go.mod's
# replace directives into ./staging are dropped and the k8s.io/* modules
# are pinned at their published v0.MINOR.PATCH versions.
set -euo pipefail
V=${KUBE_VERSION:-1.37.2}
CACHE=${KUBE_CACHE:-$HOME/.cache/loadlab/kube/v$V}
BINS="kube-apiserver kube-controller-manager kubectl"
mkdir -p "$CACHE"
missing=""
for c in $BINS; do [ -x "$CACHE/$c" ] || missing="$missing $c"; done
if [ -z "$missing" ]; then
  echo "$CACHE"; exit 0
fi
src=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@v$V" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -r "$src"/. "$work"/
chmod -R u+w "$work"
cd "$work"
rm -rf go.work go.work.sum vendor
awk '/^replace \($/{skip=1} skip&&/^\)$/{skip=0; next} !skip' go.mod > go.mod.new && mv go.mod.new go.mod
sed -i -E 's#^(\s+k8s.io/[a-z0-9-]+) v0\.0\.0$#\1 v0.'"${V#1.}"'#' go.mod
GOWORK=off GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>&1 || true
for c in $missing; do
  echo "kube: building $c v$V (minutes, once)" >&2
  GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags=-s -o "$CACHE/$c" "./cmd/$c"
done
echo "$CACHE"
