"""The probes of the compiled kernels whose bits depend on how numpy adds (divaleval/native/sums.py): each passes
with its kernel, and fails when the kernel's bits differ at any length of a sum it means to check; and none
imports numpy.random (25 ms of a call that scores with those kernels).

The kernels stood in for here are the real ones with one sum nudged by an ulp after they ran: a probe that
compared fewer lengths than it claims would pass one of them.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from divaleval import native
from divaleval.native import sums
from divaleval.native.compiled import _probes

if not native.built():
    pytest.skip("the compiled kernels are not built here: no probe runs", allow_module_level=True)

KERNELS = native.compiled._built


def nudged(value: float) -> float:
    return np.nextafter(value, np.inf)


@pytest.mark.parametrize("name", sorted(_probes))
def test_every_probe_passes_with_its_kernel(name):
    assert _probes[name](getattr(KERNELS, name)), f"this numpy's {name} bits are the kernel's"


MASKED_LENGTHS = sorted({count for w in sums.PROBED_WIDTHS for count in (0, w // 2, w)})


@pytest.mark.parametrize("length", MASKED_LENGTHS)
def test_masked_row_sums_probe_checks_every_length(length):
    def off_at_length(values, values_width, mask, mask_width, columns, out):
        KERNELS.masked_row_sums(values, values_width, mask, mask_width, columns, out)
        if columns == length:
            out[1] = nudged(out[1])

    assert not _probes["masked_row_sums"](off_at_length)


@pytest.mark.parametrize("length", [n for n in MASKED_LENGTHS if n >= 8])
def test_masked_row_sums_probe_tells_a_left_to_right_sum(length):
    """A kernel that adds a row's entries one after another, where numpy's pairwise scheme keeps eight sums
    (8 entries and more), fails the probe at every such length: its inputs are irregular enough for the order
    of the additions to show in the bits."""
    def left_to_right_at_length(values, values_width, mask, mask_width, columns, out):
        KERNELS.masked_row_sums(values, values_width, mask, mask_width, columns, out)
        if columns == length:
            for r in range(len(out)):
                total = 0.0
                for value, kept in zip(values[r, :columns].tolist(), mask[r, :columns].tolist()):
                    total += value if kept else 0.0
                out[r] = total

    assert not _probes["masked_row_sums"](left_to_right_at_length)


CUT_LENGTHS = sorted({count for w in sums.PROBED_WIDTHS for count in ((max(w // 2, 1) if w else 0), w)})


@pytest.mark.parametrize("length", [n for n in CUT_LENGTHS if n >= 8])
def test_cut_row_sums_probe_tells_a_left_to_right_sum(length):
    def left_to_right_at_length(values, within, position, rows, width, bounds, columns, out):
        KERNELS.cut_row_sums(values, within, position, rows, width, bounds, columns, out)
        for j in np.flatnonzero(columns == length):
            for r in range(rows):
                total = 0.0
                for c in range(length):
                    if within[r, c] and (bounds[j] == -1 or position[r, c] <= bounds[j]):
                        total += values[r, c]
                out[j, r] = total

    assert not _probes["cut_row_sums"](left_to_right_at_length)


LIST_LENGTHS = sorted({count for w in sums.PROBED_WIDTHS[1:] for count in (max(w // 2, 1), w)})


@pytest.mark.parametrize("part", ["sums", "p_plus"])
@pytest.mark.parametrize("length", LIST_LENGTHS)
def test_gain_list_sums_probe_checks_every_length_in_its_one_call(length, part):
    """The probe cuts one list at every length; each cutoff's sums and P+'s parts are compared."""
    calls = []

    def off_at_length(*args):
        done = KERNELS.gain_list_sums(*args)
        columns, out, total = args[13], args[14], args[16]
        calls.append(len(columns))
        for j in np.flatnonzero(columns == length):
            if part == "sums":
                out[length % len(sums.TERM_KINDS), j, 2] = nudged(out[length % len(sums.TERM_KINDS), j, 2])
            else:
                total[j, 0] = nudged(total[j, 0])
        return done

    assert not _probes["gain_list_sums"](off_at_length)
    assert calls == [len(LIST_LENGTHS)], "one call, a cutoff per length"


def test_probe_numbers_are_what_they_say():
    numbers = sums._ProbeNumbers()
    uniform = numbers.random((1000,))
    assert uniform.min() >= 0.0 and uniform.max() < 1.0 and 0.4 < uniform.mean() < 0.6
    drawn = numbers.integers(-8, 8, (2000,))
    assert set(drawn.tolist()) == set(range(-8, 8))
    values = np.arange(50)
    assert sorted(numbers.permutation(values).tolist()) == values.tolist()
    assert set(numbers.choice([1.0, 3.0], (50,)).tolist()) == {1.0, 3.0}
    again = sums._ProbeNumbers()
    assert again.random((1000,)).tolist() == uniform.tolist(), "the same inputs in every process"


def test_probing_imports_no_numpy_random():
    code = ("import sys\n"
            "from divaleval.native import compiled, sums, greedy, hits\n"
            "compiled.probe_all()\n"
            "assert all(compiled._agrees.values()), compiled._agrees\n"
            "print('numpy.random' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**__import__("os").environ, "DIVALEVAL_NATIVE": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
