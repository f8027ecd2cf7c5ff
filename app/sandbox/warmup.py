"""What the zygote loads and warms before it forks, and what a child warms before its run.

Everything a run needs must be imported here: a child running as another user may be unable to
read the interpreter's files, and Landlock lets it read only the allowed folders anyway.
"""

from __future__ import annotations

import ctypes
import gc
import io

# Modules a snippet may import: loaded here, because a child running as another user may be
# unable to read the interpreter's files at all.
PRELOADED_MODULES = (
    "torch",
    "numpy",
    "torch.nn",
    "torch.nn.functional",
    "torch.optim",
    "torch.autograd",
    "torch.autograd.functional",
    "torch.nn.utils",
    "torch.utils.checkpoint",
    "math",
    "random",
    "itertools",
    "functools",
    "collections",
    "dataclasses",
    "typing",
    "statistics",
    "fractions",
    "decimal",
    "json",
    "re",
    "string",
    "textwrap",
    "copy",
    "operator",
    "enum",
    "warnings",
    "traceback",
    "time",
    "numbers",
    "pprint",
    "threading",
    "io",
    "pickle",
    "torch.utils.serialization",
    "torch.autograd.forward_ad",
    "torch.autograd.gradcheck",
    "torch.nn.utils.clip_grad",
    "torch.optim.lr_scheduler",
    "torch.func",
    # jacfwd and hessian (forward mode) import it on first use.
    "torch._decomp.decompositions_for_jvp",
    "torch.amp",
    # torch.utils.checkpoint's backward imports it; unreadable in a child, it logs a traceback.
    "torch.profiler._cupti_monitor",
)


def warm_up_torch() -> None:
    """Initialise what torch would otherwise initialise lazily inside a confined child (cpuinfo
    reads /proc/cpuinfo), without a backward pass or a parallel op: fork must stay safe."""
    import torch

    torch.set_num_threads(1)
    torch.backends.cpu.get_cpu_capability()
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    str(a @ a.T)
    str(torch.tensor(3.0))
    torch.nn.Linear(2, 1)
    torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    buffer = io.BytesIO()
    torch.save(torch.ones(2), buffer)
    buffer.seek(0)
    torch.load(buffer)


_MADV_HUGEPAGE = 14
_MADV_COLLAPSE = 25  # Linux 6.1+
_HUGE_PAGE = 1 << 21


# What the generators start from in every child of every zygote: a snippet that draws random
# numbers without seeding draws the same ones on every run and every server, so that the same
# code always gives the same answer (app/learning/running/known_runs.py relies on it).
SEED = 0


def seed_generators() -> None:
    """Seed torch's, numpy's and Python's generators (once, in the zygote: children inherit
    the state, and nothing the zygote does after this draws from them)."""
    import random

    import numpy
    import torch

    torch.manual_seed(SEED)
    numpy.random.seed(SEED)
    random.seed(SEED)


def collapse_into_huge_pages() -> int:
    """Back the zygote's anonymous memory (about 200 MiB after importing torch) with 2 MiB pages.

    fork() copies one entry per page of it, and a run's exit frees as many: with huge pages
    both take about a quarter of the time. A child's first write to such a page still copies
    only 4 KiB (the kernel splits the huge page). Best effort: returns the bytes collapsed."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    collapsed = 0
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for fields in regions:
        if fields[1] != "rw-p" or (len(fields) > 5 and not fields[5].startswith("[heap")):
            continue  # only private anonymous memory and the heap
        low, high = (int(bound, 16) for bound in fields[0].split("-"))
        start = (low + _HUGE_PAGE - 1) & ~(_HUGE_PAGE - 1)
        end = high & ~(_HUGE_PAGE - 1)
        if end - start < _HUGE_PAGE:
            continue
        libc.madvise(start, end - start, _MADV_HUGEPAGE)
        if libc.madvise(start, end - start, _MADV_COLLAPSE) == 0:
            collapsed += end - start
    return collapsed


# A typical lesson snippet: leaves, arithmetic, a reduction, backward, tensors turned to text.
REHEARSAL = """
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w + 1).sum()
loss.backward()
text = str(w.grad)
"""


def warm_up_child() -> None:
    """Before the code arrives, rehearse a run: a typical snippet, its inspection and its
    report, all discarded. The first touch of every page a run needs (copy-on-write faults, the
    autograd engine's start, tensor printing, lazy imports) is then paid here, off the
    critical path. Safe: this process never forks, and the rehearsal leaves nothing the
    snippet can see (its namespace is dropped, the run's own code replaces its line cache)."""
    from app.sandbox import execute

    execute.encode_result(execute.run_code(REHEARSAL))


def load_and_settle() -> int:
    """What the zygote does once, before its first fork: load everything a run may need, warm
    torch up, freeze the objects, prepare the confinement, and back its memory with huge pages
    (returns the bytes collapsed into them). benchmarks/bench_child_cpu.py calls it too."""
    import importlib

    import pyseccomp  # noqa: F401 - loaded now, while its files are readable

    from app.sandbox import execute, inspection  # noqa: F401

    for name in PRELOADED_MODULES:
        importlib.import_module(name)
    warm_up_torch()
    # The gradient doctor's first watch (its torch function mode, its hooks) paid once here,
    # before the generators are seeded.
    execute.encode_result(execute.run_code(REHEARSAL, doctor=True))
    seed_generators()
    gc.collect()
    # Objects that exist now are never traversed by a child's collector: fewer copied pages.
    gc.freeze()
    from app.sandbox.isolation import prepare_in_zygote

    prepare_in_zygote()
    return collapse_into_huge_pages()
