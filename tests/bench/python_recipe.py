#!/usr/bin/env python3
"""The tutorials' PyTorch recipes, for benchmarking torchdeck-train against them on the same machine and
the same LibTorch build (Debian's python3-torch 1.13 here).

  ddp   the tutorial recipe: DataLoader + DistributedSampler + DistributedDataParallel on gloo,
        N processes started with torch.multiprocessing (mp.spawn), loss.item() every step as in the tutorial
  loop  the fastest single-process loop we could write: tensors in memory, no DataLoader, index_select
        batches, zero_grad(set_to_none=True), Adam with foreach on or off and, on CUDA, fused=True (the
        fastest is reported); on CUDA also cudnn.benchmark=True and the batches' indices on the GPU
        With --compile MODE the same loop's model runs under torch.compile(mode=MODE) ("reduce-overhead"
        captures CUDA graphs), Adam fused on CUDA, foreach on CPU; the first epoch pays the compilation.

Prints one line: `samples_per_s=<float>` (training only, the best epoch after the first).
Fashion-MNIST comes from the gzipped IDX files (torchvision is not needed and not used)."""
import argparse
import gzip
import os
import socket
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def load_fashion_mnist(directory, limit):
    with gzip.open(os.path.join(directory, "train-images-idx3-ubyte.gz")) as f:
        raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16)
    with gzip.open(os.path.join(directory, "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), dtype=np.uint8, offset=8)
    images = torch.from_numpy(raw.copy()).view(-1, 1, 28, 28).float().div_(255.0)
    labels = torch.from_numpy(labels.copy()).long()
    if limit:
        images, labels = images[:limit].contiguous(), labels[:limit].contiguous()
    return images, labels


class AE(nn.Module):  # the tutorial's auto-encoder
    def __init__(self, input_shape=784):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(input_shape, 128), nn.ReLU(inplace=True),
            nn.Linear(128, 128), nn.ReLU(inplace=True),
            nn.Linear(128, 128), nn.ReLU(inplace=True),
            nn.Linear(128, input_shape), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.net(x)


class BasicBlock(nn.Module):  # torchvision's, to build resnet18 without torchvision
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):  # torchvision's (v1.5: stride on the 3x3 convolution)
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    """torchvision's ResNet-18 (BasicBlock, [2,2,2,2]) and ResNet-50 (Bottleneck, [3,4,6,3])."""

    def __init__(self, block=None, layers=(2, 2, 2, 2), in_channels=1, num_classes=10):
        super().__init__()
        block = block or BasicBlock
        self.inplanes = 64
        self.conv1 = nn.Conv2d(in_channels, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._layer(block, 64, layers[0], 1)
        self.layer2 = self._layer(block, 128, layers[1], 2)
        self.layer3 = self._layer(block, 256, layers[2], 2)
        self.layer4 = self._layer(block, 512, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512 * getattr(block, "expansion", 1), num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def _layer(self, block, planes, count, stride):
        expansion = getattr(block, "expansion", 1)
        down = None
        if stride != 1 or self.inplanes != planes * expansion:
            down = nn.Sequential(nn.Conv2d(self.inplanes, planes * expansion, 1, stride, bias=False),
                                 nn.BatchNorm2d(planes * expansion))
        blocks = [block(self.inplanes, planes, stride, down)]
        self.inplanes = planes * expansion
        blocks += [block(self.inplanes, planes) for _ in range(1, count)]
        return nn.Sequential(*blocks)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def make(model, in_channels=1):
    if model == "ae":
        return AE()
    if model == "resnet50":
        return ResNet(Bottleneck, (3, 4, 6, 3), in_channels)
    return ResNet(BasicBlock, (2, 2, 2, 2), in_channels)


def synthetic_images(n, model="resnet50"):
    """torchdeck-train's synthetic data: 3x32x32 for the ResNets, 1x28x28 for the auto-encoder, 10 classes
    (values differ, shapes equal)."""
    g = torch.Generator().manual_seed(0)
    shape = (1, 28, 28) if model == "ae" else (3, 32, 32)
    return torch.rand(n, *shape, generator=g), torch.randint(0, 10, (n,), generator=g)


def step_loss(model_name, net, x, y):
    if model_name == "ae":
        x = x.view(-1, 784)
        return F.mse_loss(net(x), x)
    return F.cross_entropy(net(x), y)


def ddp_worker(rank, args, port, result):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(args.threads)
    dist.init_process_group("gloo", rank=rank, world_size=args.nproc)
    images, labels = load_fashion_mnist(args.data, args.limit)
    torch.manual_seed(0)
    model = DDP(make(args.model))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    dataset = TensorDataset(images, labels)
    sampler = DistributedSampler(dataset, num_replicas=args.nproc, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=0)
    best = 0.0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        dist.barrier()
        start = time.perf_counter()
        total, samples = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = step_loss(args.model, model, x, y)
            loss.backward()
            optimizer.step()
            total += loss.item()
            samples += x.shape[0]
        dist.barrier()
        rate = samples * args.nproc / (time.perf_counter() - start)
        if epoch > 0 or args.epochs == 1:
            best = max(best, rate)
    if rank == 0:
        result.put(best)
    dist.destroy_process_group()


def run_ddp(args):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    result = ctx.SimpleQueue()
    mp.spawn(ddp_worker, args=(args, port, result), nprocs=args.nproc, join=True)
    return result.get()


def run_loop(args, adam_options):
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    if args.data.startswith("synthetic:"):
        images, labels = synthetic_images(int(args.data.split(":")[1]), args.model)
    else:
        images, labels = load_fashion_mnist(args.data, args.limit)
    images, labels = images.to(device), labels.to(device)
    torch.manual_seed(0)
    net = make(args.model, images.shape[1]).to(device)
    if args.channels_last:
        net = net.to(memory_format=torch.channels_last)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3, **adam_options)
    forward = net
    mark_step = lambda: None  # noqa: E731
    if args.compile:
        forward = torch.compile(net, mode=args.compile)
        # cudagraph trees (reduce-overhead): each call starts a new step, so a step's outputs are not kept
        mark_step = getattr(torch.compiler, "cudagraph_mark_step_begin", mark_step)
    n = images.shape[0]
    best = 0.0
    for epoch in range(args.epochs):
        perm = torch.randperm(n, device=device)
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        for i in range(0, n, args.batch_size):
            idx = perm[i:i + args.batch_size]
            x, y = images.index_select(0, idx), labels.index_select(0, idx)
            if args.channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            optimizer.zero_grad(set_to_none=True)
            mark_step()
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.amp == "bf16"):
                out = forward(x.view(-1, 784) if args.model == "ae" else x)
            loss = F.mse_loss(out.float(), x.view(-1, 784)) if args.model == "ae" else F.cross_entropy(out.float(), y)
            loss.backward()
            optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        rate = n / (time.perf_counter() - start)
        if epoch > 0 or args.epochs == 1:
            best = max(best, rate)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["ddp", "loop"])
    p.add_argument("--model", choices=["ae", "resnet18", "resnet50"], default="ae")
    p.add_argument("--device", default="cpu", help="loop mode: cpu or cuda")
    p.add_argument("--amp", choices=["none", "bf16"], default="none", help="loop mode: bf16 autocast")
    p.add_argument("--channels-last", action="store_true", help="loop mode")
    p.add_argument("--compile", metavar="MODE", default="",
                   help="loop mode: the model under torch.compile(mode=MODE): default, reduce-overhead, "
                        "max-autotune, max-autotune-no-cudagraphs (list: --compile list)")
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist",
                   help="an IDX directory, or synthetic:N (3x32x32 images, as torchdeck-train's for the ResNets)")
    args = p.parse_args()
    if args.compile and not hasattr(torch, "compile"):
        sys.exit(f"--compile: torch.compile needs PyTorch 2 (this is {torch.__version__})")
    if args.compile == "list":  # the modes this PyTorch offers, one a line
        print("\n".join(torch._inductor.list_mode_options().keys()))
        return
    if args.mode == "ddp":
        rate = run_ddp(args)
    else:
        variants = [{"foreach": False}, {"foreach": True}]
        if args.device.startswith("cuda"):
            variants.append({"fused": True})
        if args.compile:  # the fastest eager variant only: each compilation costs minutes
            variants = [{"fused": True}] if args.device.startswith("cuda") else [{"foreach": True}]
        rates = []
        for options in variants:
            rates.append(run_loop(args, options))
            print(f"  Adam({options}): {rates[-1]:.1f} samples/s", file=sys.stderr)
        rate = max(rates)
    print(f"samples_per_s={rate:.1f}")


if __name__ == "__main__":
    main()
