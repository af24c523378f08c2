#!/usr/bin/env bash
# Build the macOS app: build/dist/GPU Planner.app (+ a .zip with --archive).
#   packaging/macos/build.sh [--archive] [--no-smoke]
# PYTHON picks the interpreter (default: a fresh venv in build/venv-build from python3).
# Set CODESIGN_IDENTITY to sign with a Developer ID (then notarize the .zip with notarytool);
# unsigned, Gatekeeper asks the user to confirm the first start (right click → Open).
# macOS has no NVML: the app starts in planner-only mode (no live monitor).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ -z "${PYTHON:-}" ]]; then
  python3 -m venv build/venv-build
  PYTHON=build/venv-build/bin/python
  "$PYTHON" -m pip install --quiet --upgrade pip
  "$PYTHON" -m pip install --quiet -e ".[build]"
fi
"$PYTHON" packaging/build.py "$@"
du -sh "build/dist/GPU Planner.app"
