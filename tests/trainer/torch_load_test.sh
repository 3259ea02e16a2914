#!/bin/sh
# A checkpoint written by torchdeck-train is a dict that Python's torch.load reads, with torchvision's
# state_dict names for the ResNets. Usage: torch_load_test.sh TRAINER WORKDIR
set -eu
trainer=$1
work=$2
python=${TORCHDECK_PYTHON:-python3}
for candidate in "$python" /usr/bin/python3; do
    if "$candidate" -c 'import torch' 2>/dev/null; then python=$candidate; break; fi
    python=""
done
[ -n "$python" ] || { echo "SKIP: no python3 with torch"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
"$trainer" --model resnet18 --limit 64 --batch-size 32 --epochs 1 --threads 1 --log-every 1 \
    --checkpoint-dir "$work/ckpt" >"$work/train.log" 2>&1 || { cat "$work/train.log"; exit 1; }
"$python" - "$work/ckpt" <<'PY'
import glob, json, sys, torch
path = sorted(glob.glob(sys.argv[1] + "/checkpoint-*.pt"))[-1]
# The default arguments: weights_only=True from PyTorch 2.6 on (a plain dict of tensors, strings and
# numbers passes it; 1.13's weights_only unpickler cannot read floats, so it is not forced here).
ck = torch.load(path)
assert ck["format"] == "torchdeck-checkpoint/1", ck["format"]
model = ck["model"]
assert all(isinstance(t, torch.Tensor) for t in model.values())
assert len(model) == 122, len(model)
assert model["conv1.weight"].shape == (64, 1, 7, 7)
assert model["layer2.0.downsample.0.weight"].shape == (128, 64, 1, 1)
assert model["fc.weight"].shape == (10, 512)
assert model["bn1.num_batches_tracked"].item() == 2
assert ck["progress"]["global_step"] == 2
assert ck["optimizer"]["name"] == "adam" and ck["optimizer"]["step"] == 2
params = {k for k in model if "running_" not in k and "num_batches_tracked" not in k}
assert set(ck["optimizer"]["exp_avg"]) == params and len(params) == 62
assert json.loads(ck["config"])["model"] == "resnet18"
# The ResNet weights load into a PyTorch module with the same architecture (torchvision if present).
try:
    import torchvision
    net = torchvision.models.resnet18(num_classes=10)
    net.conv1 = torch.nn.Conv2d(1, 64, 7, 2, 3, bias=False)
    net.load_state_dict(model)
    print("torchvision load_state_dict: ok")
except ImportError:
    print("torchvision not installed: state_dict names checked by hand")
print("torch.load:", path, "ok,", len(model), "tensors")
PY
