#!/bin/bash
# Fills ./.gpu/ (ignored by git) with what a run on the offline H200 device machine needs
# before wgpu can reach the GPU: the Vulkan and GL loader packages, the wgpu wheel for the
# machine's Python 3.12 (and its pure-Python dependencies), and env.sh to source per run.
# Run once per checkout, from the repository root:  bash tools/gpu/prepare.sh
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
mkdir -p .gpu/debs .gpu/whl
# A private package list, so that this works without touching the system's apt state.
lists=${TMPDIR:-/tmp}/jaxwg-gpu-apt-lists
mkdir -p "$lists/partial"
apt_opts=(-oAPT::Architecture=amd64 -oDir::State::Lists="$lists")
apt-get "${apt_opts[@]}" update -qq
(cd .gpu/debs && apt-get "${apt_opts[@]}" download \
  libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# The same wgpu as here, so that both machines run the same wgpu-native.
version=$(python3 -c 'import wgpu; print(wgpu.__version__)' 2>/dev/null || echo 0.32.0)
python3 -m pip download -q --no-deps --only-binary=:all: --implementation cp \
  --python-version 3.12 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  -d .gpu/whl "wgpu==$version" rendercanvas cffi pycparser
cp tools/gpu/env.sh .gpu/env.sh
echo "ready: carry [\".gpu\"] and start each device command with: source .gpu/env.sh && ..."
