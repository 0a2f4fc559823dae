#!/usr/bin/env bash
# The GPU check of ludus on a bare machine (docs/gpu.md): no network, no Node, no npm, possibly no Vulkan loader.
#
#   tools/device-check.sh pack [--fast] [--out DIR]   here, with node_modules installed: writes DIR/bundle.tar.xz
#                                                     (default DIR .device/): this machine's Node binary, ludus's
#                                                     production node_modules (onnxruntime-node's Linux x64 libraries
#                                                     only), Debian's Vulkan loader. --fast: gzip -1, for tests.
#   tools/device-check.sh verify DIR [BUNDLE_DIR] [--torch]
#                                                     here: copies the repository's files and the bundle into DIR
#                                                     as the device gets them, unpacks, runs `ludus --version` and a
#                                                     CPU score (with --torch, also the torch backend's equality
#                                                     check on this CPU: what the torch-equal step runs on CUDA),
#                                                     with nothing but the bundle's Node on PATH.
#   tools/device-check.sh run [--device D] [--preset P] [--bundle-dir DIR]
#                                                     on the GPU machine, from the repository root with .device/
#                                                     beside it: unpacks, sets up Vulkan, runs the checks, writes
#                                                     one JSON report to $OUT/device-report.json (or .device/out/).
#
# `run` stays under 8 minutes: every step has its own time limit and the report is written whatever step fails.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The repository's files plus the bundle must travel in 64 MiB.
TRAVEL_LIMIT=$((64 * 1024 * 1024))

die() { echo "device-check: $*" >&2; exit 2; }
say() { echo "device-check: $*" >&2; }

pack() {
  local out="$ROOT/.device" fast=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --fast) fast=1 ;;
      --out) out="$2"; shift ;;
      *) die "pack: unknown argument $1" ;;
    esac
    shift
  done
  [ -d "$ROOT/node_modules/onnxruntime-node" ] || die "pack: run npm ci first (node_modules/onnxruntime-node is missing)"
  local stage
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' RETURN
  mkdir -p "$stage/node/bin" "$stage/node_modules" "$stage/vulkan" "$out"
  cp "$(readlink -f "$(command -v node)")" "$stage/node/bin/node"
  # ludus's production dependencies, as npm resolved them here.
  (cd "$ROOT" && npm ls --omit=dev --all --parseable 2>/dev/null) | tail -n +2 | while read -r dir; do
    local rel=${dir#"$ROOT/node_modules/"}
    case "$rel" in */node_modules/*) continue ;; esac
    mkdir -p "$stage/node_modules/$(dirname "$rel")"
    cp -a "$dir" "$stage/node_modules/$rel"
  done
  [ -e "$stage/node_modules/.bin" ] || cp -a "$ROOT/node_modules/.bin" "$stage/node_modules/.bin" 2>/dev/null
  # onnxruntime-node ships every platform's libraries; the device is Linux x64.
  local napi="$stage/node_modules/onnxruntime-node/bin/napi-v6"
  find "$napi" -mindepth 1 -maxdepth 1 ! -name linux -exec rm -rf {} +
  find "$napi/linux" -mindepth 1 -maxdepth 1 ! -name x64 -exec rm -rf {} +
  # protobufjs's code generator (pbjs/pbts, 16 MB) is not used at run time.
  rm -rf "$stage/node_modules/protobufjs/cli"
  find "$stage/node_modules" \( -name '*.map' -o -name '*.md' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -type f -delete
  # Debian's Vulkan loader, for a machine whose image has none (Dawn opens libvulkan.so.1 at run time).
  local debs
  debs=$(mktemp -d)
  # Stale package lists (a machine where apt-get update never ran) are refreshed once.
  if (cd "$debs" && { apt-get download libvulkan1 >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get download libvulkan1 >/dev/null 2>&1; }; }); then
    dpkg -x "$debs"/libvulkan1_*.deb "$debs/x"
    cp -a "$debs"/x/usr/lib/*/libvulkan.so.1* "$stage/vulkan/"
  elif [ -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ]; then
    cp -a /usr/lib/x86_64-linux-gnu/libvulkan.so.1* "$stage/vulkan/"
  else
    say "pack: no libvulkan1 (apt-get download failed, none installed): the device must have its own loader"
  fi
  rm -rf "$debs"
  "$stage/node/bin/node" --version > "$stage/node-version"
  rm -f "$out"/bundle.tar.*
  local bundle
  if [ "$fast" = 1 ]; then
    bundle="$out/bundle.tar.gz"
    tar -C "$stage" -cf - . | gzip -1 > "$bundle"
  else
    bundle="$out/bundle.tar.xz"
    tar -C "$stage" -cf - . | xz -9 -T"$(nproc)" > "$bundle"
  fi
  local size tree
  size=$(stat -c %s "$bundle")
  tree=$(cd "$ROOT" && git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{s+=$1} END {print s+0}')
  say "pack: $bundle $((size / 1024 / 1024)) MiB; with the repository's files $(((size + tree) / 1024 / 1024)) MiB of $((TRAVEL_LIMIT / 1024 / 1024))"
  if [ "$fast" = 0 ] && [ $((size + tree)) -gt "$TRAVEL_LIMIT" ]; then die "pack: over the 64 MiB that travels"; fi
  echo "$bundle"
}

# Unpacks the bundle in $1 into $2 and points the repository at its node_modules.
unpack() {
  local bundle="$1" into="$2" repo="$3"
  mkdir -p "$into"
  if ! tar -xf "$bundle" -C "$into" 2>/dev/null; then
    # An image without xz: Python's lzma reads it.
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$bundle" "$into" || die "cannot unpack $bundle"
  fi
  [ -e "$repo/node_modules" ] || ln -s "$into/node_modules" "$repo/node_modules"
}

find_bundle() {
  local dir="$1"
  for f in "$dir"/bundle.tar.xz "$dir"/bundle.tar.gz; do [ -f "$f" ] && { echo "$f"; return; }; done
  die "no bundle in $dir: run tools/device-check.sh pack here first"
}

verify() {
  local dir="${1:?verify DIR}" torch=0
  [ "${*: -1}" = --torch ] && { torch=1; set -- "${@:1:$(($# - 1))}"; }
  mkdir -p "$dir/repo"
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$dir/repo"
  unpack "$(find_bundle "${2:-$ROOT/.device}")" "$dir/bundle" "$dir/repo"
  # From the repository's root, as the device runs it (tsx reads tsconfig.json from the working directory).
  # ... and onnxruntime's library from the bundle, on the CPU.
  (cd "$dir/repo" && env -i HOME="$dir" PATH="$dir/bundle/node/bin:/usr/bin:/bin" sh -c 'node bin/ludus.js --version && node bin/ludus.js score --model default --tokens 1,2,3 --json') || return 1
  # The PyTorch worker travels as the repository's files: its equality check, as the device runs it, on this CPU.
  [ "$torch" = 1 ] || return 0
  local python
  python=$(torch_python)
  if [ -n "$python" ]; then
    (cd "$dir/repo" && env -i HOME="$dir" PATH="$dir/bundle/node/bin:/usr/bin:/bin" node bin/ludus.js bench torch-backend --worker-device cpu --checks equal --python "$python" --threads 2 --json)
  else
    say "verify: no Python with torch here (LUDUS_PYTHON, /usr/bin/python3, python3); the torch steps were not tried"
  fi
}

# A Python that imports torch: LUDUS_PYTHON, else Debian's, else the first python3 on PATH (empty when none does).
torch_python() {
  local candidate
  for candidate in "${LUDUS_PYTHON:-}" /usr/bin/python3 "$(command -v python3 || true)"; do
    [ -n "$candidate" ] && "$candidate" -c 'import torch' >/dev/null 2>&1 && { echo "$candidate"; return; }
  done
}

# Vulkan on a bare image: the loader from the bundle where the system has none, NVIDIA's ICD manifest where the
# driver mount has one the loader does not search, or one written for the driver's library.
setup_vulkan() {
  local bundle_dir="$1"
  if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 '; then
    export LD_LIBRARY_PATH="$bundle_dir/vulkan${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    say "Vulkan loader: the bundle's"
  fi
  if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && ! ls /etc/vulkan/icd.d/*.json /usr/share/vulkan/icd.d/*.json >/dev/null 2>&1; then
    local icd
    for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/icd.d/nvidia_icd.json /usr/local/share/vulkan/icd.d/nvidia_icd.json; do
      [ -f "$icd" ] && { export VK_DRIVER_FILES="$icd"; break; }
    done
    if [ -z "${VK_DRIVER_FILES:-}" ]; then
      local glx
      glx=$(ldconfig -p 2>/dev/null | awk '/libGLX_nvidia.so.0 /{print $NF; exit}')
      [ -z "$glx" ] && glx=$(ls /usr/local/nvidia/lib64/libGLX_nvidia.so.0 /usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0 2>/dev/null | head -1)
      if [ -n "$glx" ]; then
        printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s","api_version":"1.3.0"}}\n' "$glx" > "$bundle_dir/nvidia_icd.json"
        export VK_DRIVER_FILES="$bundle_dir/nvidia_icd.json"
      fi
    fi
    say "Vulkan driver manifest: ${VK_DRIVER_FILES:-none found}"
  fi
}

# step NAME SECONDS COMMAND...: stdout to $work/NAME.json, stderr to $work/NAME.log, the outcome to $work/NAME.rc.
step() {
  local name="$1" seconds="$2"
  shift 2
  say "step $name (at most ${seconds}s): $*"
  local start=$SECONDS
  timeout --kill-after=10 "$seconds" "$@" > "$work/$name.json" 2> "$work/$name.log"
  echo "$? $((SECONDS - start))" > "$work/$name.rc"
  say "step $name: exit $(cut -d' ' -f1 "$work/$name.rc") after $((SECONDS - start))s"
}

run() {
  local device=webgpu preset=qwen3-0.6b bundle_from="$ROOT/.device"
  while [ $# -gt 0 ]; do
    case "$1" in
      --device) device="$2"; shift ;;
      --preset) preset="$2"; shift ;;
      --bundle-dir) bundle_from="$2"; shift ;;
      *) die "run: unknown argument $1" ;;
    esac
    shift
  done
  local started=$SECONDS bundle_dir=/tmp/ludus-device
  local report_dir="${OUT:-$ROOT/.device/out}"
  mkdir -p "$report_dir"
  work=$(mktemp -d)
  unpack "$(find_bundle "$bundle_from")" "$bundle_dir" "$ROOT"
  export PATH="$bundle_dir/node/bin:$PATH"
  setup_vulkan "$bundle_dir"
  local threads
  threads=$(nproc)
  cd "$ROOT" || die "no $ROOT"
  local ludus=(node bin/ludus.js)
  { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo none; } > "$work/gpu.txt"
  step version 20 "${ludus[@]}" --version
  # Where the nodes of each graph go: the ones the provider lacks run on the CPU.
  step placement 45 "${ludus[@]}" bench placement --device "$device" --preset qwen3-4m --json
  # Score against the CPU, tandem decode, a training step, at a small preset first: the quick answer.
  step small 60 "${ludus[@]}" bench engine --device "$device" --preset qwen3-4m --batches 1,16,64 --threads "$threads" --json
  # The bench rows at the qwen3-0.6b preset: ceiling, score vs CPU, solo and tandem decode at B = 1, 16, 64, training.
  # Each phase prints its numbers to stderr as it ends: a run cut short keeps them in the report (stderr_tail).
  step bench 150 "${ludus[@]}" bench engine --device "$device" --preset "$preset" --threads "$threads" --json
  # CUDA through the same code: the npm package's CUDA binaries are not in the bundle (they come from NuGet).
  step cuda 20 "${ludus[@]}" score --model default --tokens 1,2,3 --device cuda --json
  # The torch backend, with the image's own torch (none travels in 64 MiB): 2 tandem steps on CUDA against the CPU
  # worker (within 1e-3), a full fine-tuning and a LoRA step at the preset with tokens/s, FSDP at world size 1.
  local python
  python=$(torch_python)
  [ -n "$python" ] || python="${LUDUS_PYTHON:-python3}"
  step torch-equal 60 "${ludus[@]}" bench torch-backend --worker-device cuda --checks equal --python "$python" --threads "$threads" --json
  step torch-speed 90 "${ludus[@]}" bench torch-backend --worker-device cuda --checks speed --preset "$preset" --python "$python" --threads "$threads" --json
  step torch-fsdp 30 "${ludus[@]}" bench torch-backend --worker-device cuda --strategy fsdp --checks equal --python "$python" --threads "$threads" --json
  node - "$work" "$report_dir/device-report.json" "$device" "$((SECONDS - started))" <<'EOF'
const { readFileSync, writeFileSync, existsSync } = require('node:fs');
const [work, out, device, seconds] = process.argv.slice(2);
const read = (name) => {
  const [code, wall] = readFileSync(`${work}/${name}.rc`, 'utf8').trim().split(' ').map(Number);
  const stdout = readFileSync(`${work}/${name}.json`, 'utf8').trim();
  let result = null;
  try { result = JSON.parse(stdout.split('\n').pop()); } catch { result = stdout.slice(-2000) || null; }
  const log = readFileSync(`${work}/${name}.log`, 'utf8');
  return { exit: code, wall_s: wall, result, ...(code === 0 ? {} : { stderr_tail: log.slice(-20000) }) };
};
const steps = Object.fromEntries(['version', 'placement', 'small', 'bench', 'cuda', 'torch-equal', 'torch-speed', 'torch-fsdp'].filter((n) => existsSync(`${work}/${n}.rc`)).map((n) => [n, read(n)]));
const report = {
  date: new Date().toISOString(),
  gpu: readFileSync(`${work}/gpu.txt`, 'utf8').trim(),
  device,
  wall_s: Number(seconds),
  environment: { LD_LIBRARY_PATH: process.env.LD_LIBRARY_PATH ?? null, VK_DRIVER_FILES: process.env.VK_DRIVER_FILES ?? null, node: process.version },
  steps,
};
writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
console.error(`device-check: report ${out}`);
EOF
  rm -rf "$work"
}

case "${1:-}" in
  pack) shift; pack "$@" ;;
  verify) shift; verify "$@" ;;
  run) shift; run "$@" ;;
  *) die "usage: tools/device-check.sh pack [--fast] [--out DIR] | verify DIR [BUNDLE_DIR] [--torch] | run [--device webgpu|cuda] [--preset P] [--bundle-dir DIR]" ;;
esac
