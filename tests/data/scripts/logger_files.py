# A user's script whose logger writes its own files in the working directory, as PyTorch Lightning's
# CSVLogger (lightning_logs/version_0/metrics.csv, rewritten whole when a column appears) or TensorBoard's
# SummaryWriter (runs/exp/events.out.tfevents.*) do, with the standard library only. It also prints seed
# 001's epoch line: the log fills the series the files lack (the train loss by epoch).
# Usage: logger_files.py csv|tensorboard EPOCHS STEPS_PER_EPOCH
import csv
import os
import sys
import time

from tfevents_writer import EventFileWriter

mode, epochs, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def write_csv(rows):
    path = "lightning_logs/version_0/metrics.csv"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    columns = sorted({key for row in rows for key in row})
    with open(path + ".tmp", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    os.replace(path + ".tmp", path)


rows = []
writer = EventFileWriter("runs/exp") if mode == "tensorboard" else None
step = 0
for epoch in range(1, epochs + 1):
    for _ in range(steps):
        step += 1
        loss = 2.0 / step
        if writer:
            writer.add_scalar("Loss/train", loss, step)
            writer.add_scalar("grad_norm", 10.0 + step, step)
        else:
            rows.append({"epoch": epoch - 1, "step": step, "train_loss_step": loss, "lr-Adam": 0.001,
                         "grad_norm": 10.0 + step})
    if writer:
        writer.add_scalar("val_loss", 1.0 / epoch, epoch)
        writer.add_scalar("accuracy", 0.5 + epoch / 100, epoch)
        writer.flush()
    else:
        rows.append({"epoch": epoch - 1, "step": step, "val_loss": 1.0 / epoch, "val_acc": 0.5 + epoch / 100})
        write_csv(rows)
    print(f"epoch: {epoch}/{epochs}, loss = {3.0 / epoch:.6f}", flush=True)
    time.sleep(1)
if writer:
    writer.close()
