#!/usr/bin/python3
# Writes TensorBoard event files the way tensorboard/torch.utils.tensorboard do, with the standard library
# only (no protobuf, no TensorFlow): TFRecord framing around hand-encoded Event protos, with its own
# CRC-32C. Written from the file format, not from torchdeck's reader, so each checks the other.
#
#   from tfevents_writer import EventFileWriter
#   with EventFileWriter("runs/exp1") as w:
#       w.add_scalar("loss", 0.5, step=1)
#
# Usage: tfevents_writer.py fixture OUT      the fixture tests/data/metrics/scalars.tfevents
#        tfevents_writer.py demo LOGDIR N    N steps of loss/lr and per-epoch val_loss/accuracy into LOGDIR
import math
import os
import socket
import struct
import sys
import time


def _crc32c_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC32C_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _CRC32C_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


# Protocol buffer wire format: the few encodings an Event needs.
def _varint(value):
    value &= 0xFFFFFFFFFFFFFFFF  # negative int64: ten bytes of two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(field, wire_type):
    return _varint(field << 3 | wire_type)


def _double(field, value):
    return _key(field, 1) + struct.pack("<d", value)


def _float(field, value):
    return _key(field, 5) + struct.pack("<f", value)


def _int(field, value):
    return _key(field, 0) + _varint(value)


def _bytes(field, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return _key(field, 2) + _varint(len(data)) + data


# Event { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
# Summary { repeated Value value = 1; }  Summary.Value { string tag = 1; float simple_value = 2; }
def event(wall_time, step=0, file_version=None, scalars=()):
    data = _double(1, wall_time)
    if step:
        data += _int(2, step)  # proto3 leaves out a default value
    if file_version is not None:
        data += _bytes(3, file_version)
    if scalars:
        summary = b"".join(_bytes(1, _bytes(1, tag) + _float(2, value)) for tag, value in scalars)
        data += _bytes(5, summary)
    return data


def record(data):
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc32c(length)) + data + struct.pack("<I", masked_crc32c(data))


class EventFileWriter:
    """One events.out.tfevents.* file in logdir, named and started as TensorBoard's writer does."""

    _count = 0

    def __init__(self, logdir, filename=None, wall_time=None):
        os.makedirs(logdir, exist_ok=True)
        if filename is None:
            EventFileWriter._count += 1
            filename = "events.out.tfevents.%010d.%s.%d.%d" % (
                time.time(), socket.gethostname(), os.getpid(), EventFileWriter._count)
        self.path = os.path.join(logdir, filename)
        self._file = open(self.path, "wb")
        self._write(event(time.time() if wall_time is None else wall_time, file_version="brain.Event:2"))
        self.flush()

    def _write(self, data):
        self._file.write(record(data))

    def add_scalar(self, tag, value, step, wall_time=None):
        wall_time = time.time() if wall_time is None else wall_time
        self._write(event(wall_time, step, scalars=[(tag, float(value))]))

    def flush(self):
        self._file.flush()

    def close(self):
        if not self._file.closed:
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# 3 epochs of 4 steps: loss, lr and grad_norm by global step (1..12); val_loss and accuracy by epoch, as
# writer.add_scalar("val_loss", v, epoch) logs them. Wall times start at 1700000000 and advance 1 s per step.
def write_fixture(path):
    logdir, filename = os.path.split(os.path.abspath(path))
    t0 = 1700000000.0
    with EventFileWriter(logdir, filename, wall_time=t0) as w:
        for epoch in range(1, 4):
            for i in range(1, 5):
                step = (epoch - 1) * 4 + i
                t = t0 + step
                w.add_scalar("loss", 2.0 / step, step, t)
                w.add_scalar("lr", 0.1 * 0.5 ** (epoch - 1), step, t)
                w.add_scalar("grad_norm", 1.0 + step / 8, step, t)
            w.add_scalar("val_loss", 1.0 / epoch + 0.25, epoch, t + 0.5)
            w.add_scalar("accuracy", 0.5 + epoch / 8, epoch, t + 0.5)


def write_demo(logdir, steps):
    with EventFileWriter(logdir) as w:
        for step in range(1, steps + 1):
            w.add_scalar("loss", 1.0 / math.sqrt(step), step)
            w.add_scalar("lr", 1e-3, step)
            if step % 10 == 0:
                epoch = step // 10
                w.add_scalar("val_loss", 1.1 / math.sqrt(step), epoch)
                w.add_scalar("accuracy", 1.0 - 0.5 / epoch, epoch)
            w.flush()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "fixture":
        write_fixture(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "demo":
        write_demo(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit("usage: tfevents_writer.py fixture OUT | tfevents_writer.py demo LOGDIR STEPS")
