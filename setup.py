"""The compiled kernels of divaleval (divaleval/native): optional, so that divaleval installs without a C
compiler, only slower (the rest of the configuration is in pyproject.toml).

Floating-point contraction is off: a multiply and an add fused into one instruction (FMA, which GCC and
clang emit by default where the target has it: aarch64, Apple silicon, -march=native) round once where
numpy rounds twice, and the kernels must give numpy's bits.
"""
import sys

from setuptools import Extension, setup

FLAGS = [] if sys.platform == "win32" else ["-ffp-contract=off"]  # MSVC does not contract by default
NATIVE = "divaleval/native/"
# One extension, one C file per concern (kernels.h says which), so that each can be dropped alone.
SOURCES = [NATIVE + name for name in ("module.c", "parse.c", "lines.c", "match.c", "print.c", "sums.c",
                                         "hits.c", "greedy.c")]

setup(ext_modules=[Extension("divaleval.native._kernels", SOURCES, depends=[NATIVE + "kernels.h"], optional=True,
                             extra_compile_args=FLAGS)])
