#!/usr/bin/env bash
# Build the Linux one-folder bundle: build/dist/gpu-planner/gpu-planner
# (+ build/dist/gpu-planner-linux-<arch>.tar.gz with --archive).
#   packaging/linux/build.sh [--archive] [--no-smoke]
# PYTHON picks the interpreter (default: python3); a fresh venv is made in build/venv-build
# unless PYTHON is set. Needs the Qt runtime libraries of a desktop (libxcb-*, libxkbcommon,
# libEGL/libGL, fontconfig) for the offscreen --self-test; they are not bundled.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ -z "${PYTHON:-}" ]]; then
  python3 -m venv build/venv-build
  PYTHON=build/venv-build/bin/python
  "$PYTHON" -m pip install --quiet --upgrade pip
  "$PYTHON" -m pip install --quiet -e ".[build]"
fi
"$PYTHON" packaging/build.py "$@"
du -sh build/dist/gpu-planner
