# A user's own DDP script, written for torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
# MASTER_PORT): torchdeck exports them under every launch method, so it runs unchanged under srun, srun +
# torchrun and mpirun. Rank 0 prints the epoch lines of seed 001; every rank prints the all_reduce sum.
# Seed 004's torch.distributed.launch passes --local_rank instead: the script takes it as that seed's does.
# Each rank also says which GPUs it sees (the sandbox's stand-in GPUs: Slurm sets CUDA_VISIBLE_DEVICES).
import argparse
import os

import torch
import torch.distributed as dist

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=int(os.environ["LOCAL_RANK"]))
local = parser.parse_args().local_rank
dist.init_process_group("gloo", rank=rank, world_size=world)  # env://: MASTER_ADDR, MASTER_PORT
torch.manual_seed(rank)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
epochs = 3
for epoch in range(1, epochs + 1):
    x = torch.randn(32, 4)
    loss = torch.nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if rank == 0:
        print(f"epoch: {epoch}/{epochs}, loss = {loss.item():.6f}", flush=True)
total = torch.tensor([float(rank + 1)])
dist.all_reduce(total)
gpus = os.environ.get("CUDA_VISIBLE_DEVICES", "none")  # what the scheduler bound to this rank
print(f"rank {rank} of {world} (local {local}): all_reduce sum {total.item():g}, gpus {gpus}", flush=True)
dist.destroy_process_group()
