#!/bin/sh
# Refreshes the uPlot build that loadlab embeds in its self-contained HTML
# pages (internal/plot/web/assets) from the version pinned in
# web/package.json. The copied files are committed so that building loadlab
# never needs npm or the network.
#
# Usage: scripts/update-uplot.sh   (bump "uplot" in web/package.json first)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/web"
npm ci --no-audit --no-fund
dist=node_modules/uplot/dist
dest=$root/internal/plot/web/assets
cp "$dist/uPlot.iife.min.js" "$dist/uPlot.min.css" "$dest/"
cp node_modules/uplot/LICENSE "$dest/uPlot.LICENSE"
version=$(node -p 'require("./node_modules/uplot/package.json").version')
printf '%s\n' "$version" > "$dest/uPlot.VERSION"
echo "internal/plot/web/assets: uPlot $version"
