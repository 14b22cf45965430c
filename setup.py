"""The compiled kernels of the per-run path (divaleval/native): optional, so that divaleval installs
without a C compiler, only slower (the rest of the configuration is in pyproject.toml)."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("divaleval.native._kernels", ["divaleval/native/_kernels.c"], optional=True)])
