# A user's script that reports its metrics the documented way (docs/metrics-schema.md): JSON Lines appended
# to TORCHDECK_METRICS_FILE, with the standard library only. It also prints a line the log patterns would
# read, which torchdeck must then leave alone (the metrics file wins). Usage: metrics_file.py EPOCHS
import json
import os
import sys
import time


def report(event, **fields):
    with open(os.environ["TORCHDECK_METRICS_FILE"], "a") as f:
        f.write(json.dumps({"schema": 1, "event": event, "time": time.time(), **fields}) + "\n")


epochs = int(sys.argv[1])
for epoch in range(1, epochs + 1):
    loss = 1.0 / epoch
    report("epoch", epoch=epoch, epochs=epochs, train_loss=loss, val_loss=loss + 0.1)
    print(f"epoch: {epoch}/{epochs}, loss = {loss + 5:.6f}", flush=True)  # not plotted: the file has the data
print("run", os.environ["TORCHDECK_RUN_ID"], "attempt", os.environ["TORCHDECK_ATTEMPT"],
      "checkpoints in", os.environ["TORCHDECK_CHECKPOINT_DIR"], flush=True)
