# Sourced at the start of each device run (copied to .gpu/ by tools/gpu/prepare.sh).
# Unpacks the loaders, installs the wgpu wheels next to the tree and puts the tree on
# PYTHONPATH (no install step), and points the Vulkan loader at NVIDIA's driver.
for deb in .gpu/debs/*.deb; do dpkg -x "$deb" /; done
ldconfig
site=${TMPDIR:-/tmp}/jaxwg-site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target "$site" .gpu/whl/*.whl
export PYTHONPATH="$PWD:$site${PYTHONPATH:+:$PYTHONPATH}"
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export PYTHONUNBUFFERED=1
