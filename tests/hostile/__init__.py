"""Hostile input, in one place: what every command does with input that is wrong, odd or malicious.

* test_native_input.py: the native command (`divaleval QRELS RUN`) on each hostile input of
  docs/bad-input.md: the right number, or `FILE:LINE: reason` and exit status 2; pipes, signals, huge fields.
* test_native_errors.py: the native command's messages for bad qrels, runs, iprob files and measure names.
* test_ndeval_dropin.py: `divaleval ndeval` on hostile input, against ndeval 4.5's recorded output.
* test_properties.py: both commands, property-based (hypothesis), with harness.py (the in-process
  runner under a time limit, the checks of an outcome, the strategies that mutate and generate input).
* test_commands_properties.py: compare, meta, axioms, validate and simulate-preferences, property-based:
  hostile files, option values and output paths.
* test_round2.py: issue 26's cases (compressed input, Ctrl-C, huge cutoffs, topic ids written otherwise).
* test_promises.py: one test named after each promise of docs/bad-input.md.
"""
