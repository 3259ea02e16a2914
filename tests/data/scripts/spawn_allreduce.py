# Seed 001's way: one process starts its ranks with torch.multiprocessing.spawn and picks the rendezvous
# itself (torchdeck's local launch method runs it as it is).
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, port):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    epochs = 3
    for epoch in range(1, epochs + 1):
        loss = torch.tensor([1.0 / (epoch + rank)])
        print(f"epoch: {epoch}/{epochs}, loss = {loss.item():.6f}", flush=True)
    total = torch.tensor([float(rank + 1)])
    dist.all_reduce(total)
    print(f"rank {rank} of {world} (spawned): all_reduce sum {total.item():g}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    world = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(world, port), nprocs=world)
