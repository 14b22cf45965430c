"""divaleval as an ir_measures provider: ir_measures' diversity measures, and divaleval's own, computed here.

``import divaleval.ir_measures`` (the extra ``divaleval[ir_measures]``) registers the provider
``divaleval`` in ir_measures' provider registry and puts it in ``ir_measures.DefaultPipeline``
just before pyndeval's, so that ``ir_measures.calc_aggregate``, ``iter_calc``, ``evaluator`` and
PyTerrier's ``pt.Experiment`` (which calls them) compute with divaleval:

* ir_measures' own diversity measures, those its pyndeval provider computes (``alpha_nDCG``,
  ``alpha_DCG``, ``ERR_IA``, ``nERR_IA``, ``NRBP``, ``nNRBP``, ``AP_IA``, ``P_IA``, ``StRecall``),
  with their parameters (``cutoff``, ``alpha``, ``beta``, ``rel``, ``judged_only``) and the values
  pyndeval's provider gives; also without a cutoff (the whole ranking) and past 20, which pyndeval
  refuses. ``ir_measures.pyndeval`` still computes them with pyndeval when asked by name.
* divaleval's measures of intentwise judgments that ir_measures lacks, as ir_measures
  :class:`~ir_measures.measures.Measure` objects generated from the catalogue: one attribute of
  this module per family, named as a Python identifier (``D#-nDCG`` is ``D_sharp_nDCG``, ``P+Q#`` is
  ``P_plus_Q_sharp``, ``I-rec`` is ``I_rec``: :data:`NAMES`), with the family's parameters (and its
  cutoff), plus ``judged_only`` and, for binary measures, ``rel``. They are registered with
  ir_measures' measure names too, so ``ir_measures.parse_measure("D_sharp_nDCG@10")`` and PyTerrier's
  string metrics find them. A family whose name is ir_measures' already (nDCG, AP, ERR, RBP, P...,
  or one of divaleval's aliases of ir_measures' names) is left to ir_measures' providers, whose
  definitions those are; measures of multi-aspect or preference judgments (TOMA, CAM, MM, nPrf) need
  judgments ir_measures' qrels cannot hold.

ir_measures' qrels and runs are read by :mod:`divaleval.io.frames` (DataFrames, dicts, namedtuple
iterators); the qrels' ``iteration`` is the intent. Every qrels topic gets a value (0 where the run
has none of it), as ir_measures fills them. Warnings (a topic without relevant documents, run
topics the qrels lack) are :class:`~divaleval.errors.DivalevalWarning`. ir_measures has no entry
point for providers (it keeps a fixed list), so importing this module is what registers it.
"""
from __future__ import annotations

from itertools import groupby
from typing import Any, Iterator

import ir_measures
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ir_measures import providers
from ir_measures.measures.base import _NOT_PROVIDED, Measure as IrMeasure, ParamInfo
from ir_measures.providers.base import Any as AnyValue
from ir_measures.util import Metric

from .api import make_settings
from .compat.pyndeval import ORDER, in_pyndeval_order
from .errors import emit_warning
from .evaluator import Evaluator
from .io import RunTable
from .io.frames import qrels_table, run_tables
from .io.table import binary_array
from .measures import NONE, REGISTRY, REQUIRED, Measure, MeasureDef, catalogue
from .measures.core import INTENTS
from .measures.core.aliases import ALIASES, IR_MEASURES
from .measures.core.definition import MAX_CUTOFF
from .model import Qrels, build_qrels

PROVIDER_NAME = "divaleval"
# ir_measures' diversity measures (those its pyndeval provider computes) and the family each is here.
SHARED = {alias.name: alias.target for alias in ALIASES if alias.tool == IR_MEASURES
          and any(m.NAME == alias.name for m in ir_measures.pyndeval.SUPPORTED_MEASURES)}


def identifier(family: str) -> str:
    """A family's name as a Python identifier (ir_measures parses measure names as Python)."""
    if family.endswith("@100%"):  # S-RR@100%: the cutoff is part of the name
        family = family[: -len("@100%")]
    text = family.replace("#", "_sharp_").replace("+", "_plus_").replace("-", "_")
    while "__" in text:
        text = text.replace("__", "_")
    return text.strip("_")


def _taken(name: str) -> bool:
    """A name ir_measures has (in any case), or one divaleval spells as an alias of an ir_measures name."""
    key = name.lower()
    return (any(key == known.lower() for known in ir_measures.measures.registry)
            or any(alias.tool == IR_MEASURES and alias.target == name for alias in ALIASES))


def _param_info(param) -> ParamInfo:
    dtype = {float: (float, int), int: int, str: str}.get(param.kind)  # None: a structured value (text or tuple)
    return ParamInfo(dtype=dtype, default=param.default, choices=param.choices or _NOT_PROVIDED, desc=param.doc)


def _measure_of(definition: MeasureDef) -> IrMeasure:
    """ir_measures' Measure for a divaleval family: its parameters, cutoff, ``judged_only`` and (binary) ``rel``."""
    name = identifier(definition.name)
    params: dict[str, ParamInfo] = {}
    if definition.cutoff != NONE:
        params["cutoff"] = ParamInfo(dtype=int, required=definition.cutoff == REQUIRED, desc="ranking cutoff threshold")
    params.update((p.name, _param_info(p)) for p in definition.params)
    if definition.binary:
        params["rel"] = ParamInfo(dtype=int, default=1,
                                  desc="minimum relevance score to be considered relevant (inclusive)")
    params["judged_only"] = ParamInfo(dtype=bool, default=False,
                                      desc="calculate measure using only judged documents")
    doc = f"divaleval's {definition.name}: {definition.summary}.\n\n{definition.citation}"
    kind = type(f"_{name}", (IrMeasure,), {"__name__": name, "NAME": name, "PRETTY_NAME": definition.name,
                                           "SHORT_DESC": definition.summary, "SUPPORTED_PARAMS": params,
                                           "__doc__": doc, "__module__": __name__})
    return kind()


# divaleval's families for ir_measures: name -> Measure, and the family each stands for.
MEASURES: dict[str, IrMeasure] = {}
NAMES: dict[str, str] = {}  # ir_measures name -> divaleval family
for _definition in catalogue():
    if _definition.judgments == INTENTS and not _taken(_definition.name) and not _taken(identifier(_definition.name)):
        _measure = _measure_of(_definition)
        MEASURES[_measure.NAME] = _measure
        NAMES[_measure.NAME] = _definition.name
globals().update(MEASURES)
del _definition, _measure


def family_of(measure: IrMeasure) -> str | None:
    """The divaleval family an ir_measures measure is computed as (None: not here)."""
    return SHARED.get(measure.NAME) or NAMES.get(measure.NAME)


def bound(measure: IrMeasure) -> Measure:
    """The divaleval measure for an ir_measures one: its parameters bound, the settings' ones left out."""
    definition = REGISTRY[family_of(measure)]
    params = {p.name: measure[p.name] for p in definition.params  # (ir_measures' alpha and beta are ndeval's)
              if p.name in measure.SUPPORTED_PARAMS and measure[p.name] is not _NOT_PROVIDED}
    cutoff = measure["cutoff"] if "cutoff" in measure.SUPPORTED_PARAMS else None
    if cutoff is _NOT_PROVIDED or cutoff is None:
        cutoff = MAX_CUTOFF if definition.cutoff == REQUIRED else None  # ir_measures' no cutoff: the whole ranking
    return definition.bind(params, cutoff)


def _group_key(measure: IrMeasure) -> tuple[int, bool, bool]:
    """(rel, judged_only, pyndeval's order): measures sharing them are scored by one Evaluator."""
    rel = measure["rel"] if "rel" in measure.SUPPORTED_PARAMS else 1
    judged_only = measure["judged_only"] if "judged_only" in measure.SUPPORTED_PARAMS else False
    return int(rel), bool(judged_only), measure.NAME in SHARED


class DivalevalProvider(providers.Provider):
    """divaleval: ir_measures' diversity measures (the values of pyndeval's provider) and divaleval's own."""

    NAME = PROVIDER_NAME
    SUPPORTED_MEASURES = [
        *(getattr(ir_measures, name)(**{p: AnyValue() for p in getattr(ir_measures, name).SUPPORTED_PARAMS})
          for name in SHARED),
        *(m(**{p: AnyValue() for p in m.SUPPORTED_PARAMS}) for m in MEASURES.values()),
    ]

    def supports(self, measure: IrMeasure) -> bool:
        return family_of(measure) is not None and super().supports(measure)

    def _evaluator(self, measures, qrels) -> "DivalevalEvaluator":
        return DivalevalEvaluator(list(measures), qrels)

    def install_instructions(self) -> str:
        return "pip install divaleval[ir_measures]"


class DivalevalEvaluator(providers.Evaluator):
    """The qrels read once; one divaleval :class:`~divaleval.evaluator.Evaluator` per group of measures.

    ir_measures' diversity measures rank a run as pyndeval does (ties by docno ascending,
    :mod:`divaleval.compat.pyndeval`), so that their values are its provider's; divaleval's own
    measures rank it as divaleval does (ties by docno descending, ndeval's order), so that theirs
    are the command line's.
    """

    def __init__(self, measures: list[IrMeasure], qrels: Any) -> None:
        table = qrels_table(qrels)
        judgments: Qrels = build_qrels(table)
        super().__init__(measures, set(judgments.topic_ids))
        self.judged = _pairs(table.topic.values(), binary_array(table.docno.values()))
        self.groups: list[tuple[Evaluator, tuple[bool, bool], list[IrMeasure]]] = []
        for (rel, judged_only, pyndeval_order), group in groupby(sorted(measures, key=_group_key), key=_group_key):
            group = list(group)
            evaluator = Evaluator(judgments, [bound(m) for m in group], complete=True,
                                  order=ORDER if pyndeval_order else None, settings=make_settings(rel_min=rel),
                                  warn=emit_warning)
            self.groups.append((evaluator, (judged_only, pyndeval_order), group))

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        if not isinstance(run, dict) and not hasattr(run, "columns"):
            run = list(run)  # namedtuples
        if not len(run):
            return  # every topic gets ir_measures' default
        whole = run_tables(run, split=False)[0]
        forms: dict[tuple[bool, bool], RunTable] = {}
        for evaluator, form, group in self.groups:
            if form not in forms:
                judged_only, pyndeval_order = form
                table = self._judged(whole) if judged_only else whole
                forms[form] = in_pyndeval_order(table) if pyndeval_order and len(table) else table
            if not len(forms[form]):
                continue  # no judged document: every topic gets ir_measures' default
            scores = evaluator.score(forms[form])
            for topic, row in zip(scores.topic_ids, scores.matrix.tolist()):
                for measure, value in zip(group, row):
                    yield Metric(query_id=topic, measure=measure, value=value)

    def _judged(self, run: RunTable) -> RunTable:
        """ir_measures' judged_only: the run's documents that have a qrels entry, whatever its level (where
        divaleval's --judged-only, trec_eval's -J, also drops documents only judged below 0, TREC's spam)."""
        keep = pc.is_in(_pairs(run.topic.values(), run.docno), value_set=self.judged).to_numpy(zero_copy_only=False)
        return run.take(np.flatnonzero(keep))


def _pairs(topics: np.ndarray, docnos: pa.Array) -> pa.Array:
    """(topic, docno) pairs as one binary value each, to match runs against the qrels."""
    return pc.binary_join_element_wise(binary_array(topics), docnos, b"\x00")


provider = DivalevalProvider()
providers.register(provider)
for _name, _measure in MEASURES.items():
    if _name not in ir_measures.measures.registry:
        ir_measures.measures.register(_measure)
if all(p.NAME != PROVIDER_NAME for p in ir_measures.DefaultPipeline.providers):
    _pipeline = ir_measures.DefaultPipeline.providers
    _pipeline.insert(_pipeline.index(ir_measures.pyndeval) if ir_measures.pyndeval in _pipeline else len(_pipeline),
                     provider)

__all__ = ["DivalevalProvider", "provider", "MEASURES", "NAMES", "SHARED", "identifier", "bound", *MEASURES]
