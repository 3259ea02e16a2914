# A user's script that stops for the warning signal and resumes: on SIGUSR1 it saves its epoch in
# TORCHDECK_CHECKPOINT_DIR and exits 75 (requeue me); started again with TORCHDECK_RESUME=1 it goes on
# from there. Prints seed 001's epoch line. Usage: resumable.py EPOCHS SECONDS_PER_EPOCH
import json
import os
import signal
import sys
import time

folder = os.environ["TORCHDECK_CHECKPOINT_DIR"]
os.makedirs(folder, exist_ok=True)
state = os.path.join(folder, "state.json")
epochs, seconds = int(sys.argv[1]), float(sys.argv[2])
epoch = 0
if os.environ.get("TORCHDECK_RESUME") == "1" and os.path.exists(state):
    with open(state) as f:
        epoch = json.load(f)["epoch"]
    print(f"resumed at epoch {epoch}", flush=True)
stop = []
signal.signal(signal.SIGUSR1, lambda number, frame: stop.append(number))
while epoch < epochs:
    time.sleep(seconds)
    epoch += 1
    print(f"epoch: {epoch}/{epochs}, loss = {1 / epoch:.6f}", flush=True)
    if stop and epoch < epochs:
        with open(state + ".tmp", "w") as f:
            json.dump({"epoch": epoch}, f)
        os.replace(state + ".tmp", state)
        print(f"checkpointed at epoch {epoch} on SIGUSR1, exit code 75", flush=True)
        sys.exit(75)
