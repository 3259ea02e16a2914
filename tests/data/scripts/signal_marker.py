# A user's script under srun + torchrun with the warning signal (SIGNAL, the one the script preview names):
# every rank's handler leaves a marker file in DIR, rank 0 writes a "checkpoint", and all exit 75 (requeue
# me). Run again (the job requeued itself), the ranks find the checkpoint and finish.
# Usage: signal_marker.py SIGNAL DIR
import os
import signal
import sys
import time

name, folder = sys.argv[1], sys.argv[2]
rank = int(os.environ["RANK"])
checkpoint = os.path.join(folder, "checkpoint")
if os.path.exists(checkpoint):
    print(f"rank {rank}: resumed from the checkpoint", flush=True)
    sys.exit(0)
caught = []
signal.signal(signal.Signals["SIG" + name], lambda number, frame: caught.append(number))
print(f"rank {rank}: training until SIG{name}", flush=True)
deadline = time.monotonic() + 600
while not caught and time.monotonic() < deadline:
    time.sleep(0.2)
if not caught:
    sys.exit(f"rank {rank}: no SIG{name} in 600 s")
with open(os.path.join(folder, f"rank{rank}"), "w") as marker:
    marker.write(signal.Signals(caught[0]).name)
if rank == 0:
    with open(checkpoint, "w") as state:
        state.write("step 42\n")
print(f"rank {rank}: checkpointed on SIG{name}, exit code 75", flush=True)
sys.exit(75)
