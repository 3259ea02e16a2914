# Seed 001's way, as a user brings it: mp.spawn starts the ranks, gloo, every rank prints
# "epoch: E/N, loss = L" (the tutorial's own line). A linear classifier on a slice of Fashion-MNIST read with
# numpy from Debian's dataset-fashion-mnist. PAUSE seconds after each epoch let a test see it live.
# Usage: spawn_fashion_mnist.py RANKS EPOCHS [SAMPLES [PAUSE]]
import gzip
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

DATA = "/usr/share/datasets/fashion-mnist"


def read(name, offset):
    with gzip.open(os.path.join(DATA, name)) as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def train(rank, world, epochs, samples, pause):
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%s" % os.environ["TD_TEST_PORT"],
                            rank=rank, world_size=world)
    images = read("train-images-idx3-ubyte.gz", 16).reshape(-1, 784)[:samples]
    labels = read("train-labels-idx1-ubyte.gz", 8)[:samples]
    x = torch.from_numpy(images[rank::world].astype(np.float32) / 255.0)
    y = torch.from_numpy(labels[rank::world].astype(np.int64))
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(784, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for epoch in range(epochs):
        for batch in range(0, len(x), 100):
            loss = torch.nn.functional.cross_entropy(model(x[batch:batch + 100]), y[batch:batch + 100])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print("epoch: {}/{}, loss = {:.6f}".format(epoch + 1, epochs, loss.item()), flush=True)
        time.sleep(pause)
    dist.destroy_process_group()


if __name__ == "__main__":
    ranks, epochs = int(sys.argv[1]), int(sys.argv[2])
    os.environ.setdefault("TD_TEST_PORT", str(20000 + os.getpid() % 20000))
    samples = int(sys.argv[3]) if len(sys.argv) > 3 else 6000
    pause = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    mp.spawn(train, args=(ranks, epochs, samples, pause), nprocs=ranks)
