#!/usr/bin/env bash
# Installs a Vulkan driver that Dawn (the `webgpu` package) can use on a Debian 12
# machine without a GPU: Mesa's software rasterizer lavapipe. Bookworm's own
# Mesa 22.3 is too old for Dawn, so mesa-vulkan-drivers comes from
# bookworm-backports (Mesa 25). Needs root (or sudo). Safe to run twice.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo 'deb http://deb.debian.org/debian bookworm-backports main' | $SUDO tee /etc/apt/sources.list.d/minivm-backports.list >/dev/null
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
ls /usr/share/vulkan/icd.d/ | grep -q lvp && echo "lavapipe installed: $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"
