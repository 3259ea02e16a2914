# Debian 12's own torchrun and torch.distributed.launch (PyTorch 1.13 on Python 3.11) fail before they start
# anything: Python 3.11 no longer iterates the zero and composite members of an IntFlag, so Std.from_str("0"),
# the default of --redirects and --tee, returns None ("'NoneType' object has no attribute 'get'"). Clusters'
# PyTorch builds do not have this. The tests put this directory on PYTHONPATH where the bug is present: when
# the launcher's module is imported, that one function is fixed; nothing else changes.
import importlib.abc
import importlib.machinery
import re
import sys

_API = "torch.distributed.elastic.multiprocessing.api"


def _fix(api):
    if api.Std.from_str("0") is not None:
        return

    def from_str(value):
        if re.match(api._VALUE_REGEX, value):
            return api.Std(int(value))
        if re.match(api._MAPPING_REGEX, value):
            return {int(rank): api.Std(int(std)) for rank, std in (pair.split(":") for pair in value.split(","))}
        raise ValueError(f"{value} does not match <{api._VALUE_REGEX}> or <{api._MAPPING_REGEX}>")

    api.Std.from_str = staticmethod(from_str)


class _FixOnImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != _API:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None:
            return None
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            _fix(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _FixOnImport())
