#!/usr/bin/env python3
"""Writes the logs of tests/data/logs/ whose programs cannot run here (no PyPI: Hugging Face, Lightning, timm,
fairseq, DeepSpeed and torchtune are not installable), in the formats those programs print, from their sources.
Each file's first lines say which program prints it and with what settings; the losses follow simple formulas
so that expected.tsv can name them. Usage: make_corpus.py [DIR]   (default: beside this script)"""
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def write(name, note, lines):
    with open(os.path.join(OUT, name), "w", newline="") as f:
        for line in note.strip().splitlines():
            f.write("# " + line + "\n")
        for line in lines:
            f.write(line + "\n")


def tqdm(done, total, postfix="", desc=""):
    pct = int(100 * done / total)
    bar = "#" * (pct // 10) + " " * (10 - pct // 10)
    rest = f", {postfix}" if postfix else ""
    return f"{desc}{pct:3d}%|{bar}| {done}/{total} [00:{done % 60:02d}<00:10, 12.50it/s{rest}]"


def hf_trainer():
    # transformers.Trainer, logging_steps=50, eval_strategy="epoch", 3 epochs of 100 steps: the console prints
    # each log dict whole (Trainer.log -> ProgressCallback.on_log), between refreshes of one tqdm bar.
    lines, step = [], 0
    for epoch in range(3):
        for _ in range(2):
            segments = [tqdm(step + k, 300) for k in (10, 30, 50)]
            step += 50
            loss = round(2.0 / (step / 50), 4)
            logs = {"loss": loss, "grad_norm": round(1.0 + step / 1000, 3), "learning_rate": 5e-05 * (1 - step / 300),
                    "epoch": round(step / 100, 2)}
            lines.append("\r".join(segments) + "\r" + str(logs))
        ev = {"eval_loss": round(1.5 / (epoch + 1), 4), "eval_accuracy": round(0.7 + 0.1 * epoch, 2),
              "eval_runtime": 1.234, "eval_samples_per_second": 810.4, "eval_steps_per_second": 101.3,
              "epoch": float(epoch + 1)}
        lines.append(str(ev))
    lines.append(str({"train_runtime": 42.0, "train_samples_per_second": 57.1, "train_steps_per_second": 7.1,
                      "train_loss": 0.9, "epoch": 3.0}))
    write("hf-trainer.log", """
Hugging Face transformers Trainer (4.4x), console output of trainer.train(): logging_steps=50,
eval_strategy="epoch", num_train_epochs=3, 100 steps per epoch; written by make_corpus.py.""", lines)


def mnist():
    # pytorch/examples mnist/main.py --epochs 2 --log-interval 300 (batch 64: 938 batches of 60000 samples).
    lines = []
    for epoch in (1, 2):
        for batch_idx in (0, 300, 600, 900):
            loss = 2.3 / (1 + (epoch - 1) * 4 + batch_idx / 300)
            lines.append(f"Train Epoch: {epoch} [{batch_idx * 64}/60000 ({100. * batch_idx / 938:.0f}%)]\tLoss: {loss:.6f}")
        correct = 9700 + 100 * epoch
        lines += ["", f"Test set: Average loss: {0.2 / epoch:.4f}, Accuracy: {correct}/10000 ({100. * correct / 10000:.0f}%)", ""]
    write("mnist.log", """
pytorch/examples mnist/main.py --epochs 2 --log-interval 300 (python3 main.py); written by make_corpus.py.""", lines)


def lightning_bar():
    # Lightning 2 TQDMProgressBar written to a file (refreshes joined by \r, one line per epoch), with a
    # validation bar and val_loss/val_acc logged with prog_bar=True; 0-based epochs.
    lines = []
    for epoch in range(2):
        segs = [f"Epoch {epoch}: " + tqdm(0, 40)]
        for done in (10, 20, 30, 40):
            loss = round(1.0 / (1 + epoch * 4 + done / 10), 3)
            post = f"v_num=0, train_loss={loss}" + (f", val_loss={0.5 / epoch:.3f}, val_acc={0.8:.3f}" if epoch else "")
            segs.append(f"Epoch {epoch}: " + tqdm(done, 40, post))
        segs += ["Validation: |          | 0/? [00:00<?, ?it/s]", "Validation DataLoader 0: " + tqdm(5, 10),
                 "Validation DataLoader 0: " + tqdm(10, 10)]
        val = f", val_loss={0.5 / (epoch + 1):.3f}, val_acc={0.8 + 0.05 * epoch:.3f}"
        segs.append(f"Epoch {epoch}: " + tqdm(40, 40, f"v_num=0, train_loss={loss}" + val))
        lines.append("\r".join(segs))
    write("lightning-bar.log", """
PyTorch Lightning 2.x Trainer(max_epochs=2), TQDMProgressBar to a file (stderr of the job): val_loss and val_acc
logged with prog_bar=True, 40 training and 10 validation batches per epoch; written by make_corpus.py.""", lines)


def epoch_zero():
    lines = []
    for epoch in range(3):
        lines.append(f"Epoch={epoch}, train_loss={0.11 / (epoch + 1):.4f}, val_loss={0.105 / (epoch + 1):.4f}")
        lines.append(f"Training time: {12.3 + epoch:.3f}s, Validation time: 1.200s")
    write("epoch-zero.log", """
A plain script that counts epochs from 0 (for epoch in range(3): print(f"Epoch={epoch}, train_loss=...")) and
prints its times on the next line; written by make_corpus.py.""", lines)


def imagenet():
    # pytorch/examples imagenet/main.py -p 100 (ProgressMeter, AverageMeter "Name val (avg)"), 2 epochs from 0.
    lines = []
    for epoch in range(2):
        for i in (0, 100, 200, 300):
            loss = 6.9 / (1 + epoch * 4 + i / 100)
            lines.append(f"Epoch: [{epoch}][{i:3d}/391]\tTime  0.123 ( 0.150)\tData  0.001 ( 0.002)\t"
                         f"Loss {loss:.4e} ({loss * 1.1:.4e})\tAcc@1  {10 + i / 10:6.2f} ( {9 + i / 10:6.2f})\t"
                         f"Acc@5  {30 + i / 10:6.2f} ( {29 + i / 10:6.2f})")
        for i in (0, 50):
            lines.append(f"Test: [ {i:2d}/79]\tTime  0.050 ( 0.060)\tLoss 2.0000e+00 (2.1000e+00)\t"
                         f"Acc@1  40.00 ( 41.00)\tAcc@5  70.00 ( 71.00)")
        lines.append(f" * Acc@1 {45.5 + 10 * epoch:.3f} Acc@5 {75.25 + 5 * epoch:.3f}")
    write("imagenet.log", """
pytorch/examples imagenet/main.py -a resnet18 --epochs 2 -p 100 (ProgressMeter lines, epochs from 0);
written by make_corpus.py.""", lines)


def timm():
    # timm train.py --log-interval 100: "Train: E [ i/N ( p%)]  Loss: v (avg) ..." and validate()'s "Test: [ i/last]".
    lines = []
    for epoch in range(2):
        for i in (0, 100, 200, 300):
            loss = 4.0 / (1 + epoch * 4 + i / 100)
            lines.append(f"Train: {epoch} [{i:4d}/391 ({100. * i / 390:3.0f}%)]  Loss: {loss:#.3g} ({loss * 1.1:#.3g})  "
                         f"Time: 0.123s, 1040.65/s  (0.150s,  853.33/s)  LR: 1.000e-03  Data: 0.001 (0.002)")
        for i in (0, 50, 78):
            lines.append(f"Test: [{i:4d}/78]  Time: 0.050 (0.060)  Loss:  {1.5:>7.3f} ({1.2 / (epoch + 1):>7.3f})  "
                         f"Acc@1: {70:>7.3f} ({60 + 10 * epoch:>7.3f})  Acc@5: {90:>7.3f} ({85:>7.3f})")
    write("timm.log", """
timm train.py (pytorch-image-models, 1.0), --epochs 2 --log-interval 100: the _logger.info lines of
train_one_epoch() and validate(); written by make_corpus.py.""", lines)


def fairseq():
    lines = []
    for epoch in (1, 2):
        for n in (100, 200):
            upd = (epoch - 1) * 200 + n
            lines.append(f"2024-11-26 07:10:{n // 10:02d} | INFO | train_inner | epoch {epoch:03d}:    {n} / 200 "
                         f"loss={8.0 / upd * 100:.3f}, nll_loss=3.2, ppl=9.19, wps=12000, ups=3.2, wpb=3000, bsz=100, "
                         f"num_updates={upd}, lr={0.0005:g}, gnorm=1.2, train_wall=30, gb_free=10.1, wall=35")
        lines.append(f"2024-11-26 07:11:00 | INFO | valid | epoch {epoch:03d} | valid on 'valid' subset | "
                     f"loss {5.0 / epoch:.3f} | nll_loss 3.1 | ppl 8.57 | wps 30000 | wpb 3000 | bsz 100 | num_updates {epoch * 200}")
        lines.append(f"2024-11-26 07:11:01 | INFO | train | epoch {epoch:03d} | loss {6.0 / epoch:.3f} | nll_loss 3.5 | "
                     f"ppl 11.3 | wps 11000 | ups 3 | wpb 3000 | bsz 100 | num_updates {epoch * 200} | lr 0.0005 | "
                     f"gnorm 1.1 | train_wall 60 | gb_free 10.1 | wall 70")
    write("fairseq.log", """
fairseq-train (0.12) --log-format simple --log-interval 100 --max-epoch 2, 200 updates per epoch: the
train_inner, valid and train lines of its logging; written by make_corpus.py.""", lines)


def deepspeed():
    lines = []
    for epoch in (1, 2):
        for i in (200, 400):
            step = (epoch - 1) * 400 + i
            lines.append(f"[2024-11-26 07:10:05,123] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, "
                         f"lr=[{0.001:g}], mom=[(0.9, 0.999)]")
            lines.append(f"[{epoch}, {i:5d}] loss: {2.0 / step * 200:.3f}")
    write("deepspeed.log", """
DeepSpeedExamples training/cifar/cifar10_deepspeed.py with steps_per_print 200 and --log-interval 200: the
engine's log_dist line and the script's "[epoch, batch] loss:" line; written by make_corpus.py.""", lines)


def torchtune():
    lines = [f"Step {s} | loss:{3.0 / s * 10:.4f} lr:2e-05 tokens_per_second_per_gpu:1000.5" for s in (10, 20, 30)]
    write("torchtune.log", """
torchtune (0.4) lora_finetune_single_device, metric_logger StdoutLogger, log_every_n_steps=10: the
logger's "Step N | name:value ..." lines; written by make_corpus.py.""", lines)


def tf_time():
    lines = []
    for epoch in (1, 2):
        lines.append(f"Time taken for epoch {epoch} is {20.5 + epoch:.1f} sec")
        lines.append(f"train_loss: {0.6 / epoch:.4f}, val_loss: {0.5 / epoch:.4f}")
    write("tf-time-taken.log", """
A TensorFlow tutorial's loop (print(f'Time taken for epoch {epoch} is {time.time() - start:.1f} sec')), then
the epoch's losses on the next line; written by make_corpus.py.""", lines)


def cifar_tutorial():
    lines = [f"[{e}, {i:5d}] loss: {2.2 / ((e - 1) * 2 + i / 2000):.3f}" for e in (1, 2) for i in (2000, 4000)]
    lines.append("Finished Training")
    lines.append("Accuracy of the network on the 10000 test images: 54 %")
    write("cifar10-tutorial.log", """
The PyTorch 60-minute blitz cifar10_tutorial.py (2 epochs, a line every 2000 mini-batches); written by
make_corpus.py.""", lines)


def python_reprs():
    lines = []
    for epoch in (1, 2, 3):
        for k in (1, 2):
            step = (epoch - 1) * 2000 + k * 1000
            lines.append(f"epoch {epoch} step {step:,} samples {step * 256:,} loss: tensor([{1200 / step:.4f}])")
        lines.append(f"epoch {epoch} done: train_loss: tensor([{1.0 / epoch:.4f}], device='cuda:0'), "
                     f"val_loss: np.float32({0.9 / epoch:.4f}), val_acc: np.float64({0.5 + epoch / 100:.4f})")
    write("python-reprs.log", """
A plain DDP script (torch 2, numpy 2) that prints its all-reduced loss as the one-element tensor it is
(print(f"loss: {loss}")), its validation figures as numpy scalars (f"{np.float32(x)!r}") and its counts with
thousands separators (f"{step:,}"); written by make_corpus.py.""", lines)


for make in (hf_trainer, mnist, lightning_bar, epoch_zero, imagenet, timm, fairseq, deepspeed, torchtune, tf_time,
             cifar_tutorial, python_reprs):
    make()
