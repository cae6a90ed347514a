#!/usr/bin/env bash
# Installs a Vulkan driver that Dawn (the `webgpu` package) can use on a Debian 12
# machine without a GPU: Mesa's software rasterizer lavapipe. Bookworm's own
# Mesa 22.3 is too old for Dawn, so mesa-vulkan-drivers comes from
# bookworm-backports (Mesa 25). Needs root (or sudo). Safe to run twice.
# Only the GPU collectors need this; on any other system it changes nothing and
# says what to install there instead.
set -euo pipefail

other_system() {
  echo "setup-vulkan.sh installs lavapipe on Debian 12 only; this is $1." >&2
  case "$2" in
    ubuntu) echo "On Ubuntu 24.04 or later: sudo apt-get install mesa-vulkan-drivers libvulkan1 (older releases: Mesa 23 or later from a PPA such as kisak-mesa)." >&2 ;;
    debian) echo "On Debian 13 or later: sudo apt-get install mesa-vulkan-drivers libvulkan1; on Debian 11 and older, Dawn's library does not load (use the CPU collectors)." >&2 ;;
    fedora|rhel|centos|rocky|almalinux) echo "On Fedora: sudo dnf install mesa-vulkan-drivers vulkan-loader (RHEL 9 and older: Dawn's library needs a newer C++ library; use the CPU collectors)." >&2 ;;
    arch|manjaro) echo "On Arch: sudo pacman -S vulkan-swrast vulkan-icd-loader." >&2 ;;
    macos) echo "On macOS nothing is needed: Dawn uses Metal." >&2 ;;
    *) echo "Install the Vulkan loader and a Vulkan driver (a GPU vendor's, or Mesa 23 or later's lavapipe)." >&2 ;;
  esac
  echo "The CPU collectors (--gc serial, parallel, none) need only npm install." >&2
  exit 1
}

if [ "$(uname -s)" = Darwin ]; then other_system macOS macos; fi
# MINIVM_OS_RELEASE: another os-release file, for the tests of this check.
OS_RELEASE="${MINIVM_OS_RELEASE:-/etc/os-release}"
if [ ! -r "$OS_RELEASE" ]; then other_system "$(uname -s) without /etc/os-release" unknown; fi
. "$OS_RELEASE"
if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ]; then
  other_system "${PRETTY_NAME:-${ID:-an unknown system}}" "${ID:-unknown}"
fi

if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "setup-vulkan.sh needs root: run it as root (sudo is not installed)." >&2
    exit 1
  fi
  SUDO=sudo
else
  SUDO=
fi
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo 'deb http://deb.debian.org/debian bookworm-backports main' | $SUDO tee /etc/apt/sources.list.d/minivm-backports.list >/dev/null
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
ls /usr/share/vulkan/icd.d/ | grep -q lvp && echo "lavapipe installed: $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"
