"""Multi-aspect measures (Maistro et al. 2021): TOMA on the weights of :mod:`.spaces`, CAM and MM
over the aspects; all on a single-aspect measure of the NCU family (:mod:`.common`)."""
from . import cam, mm, toma

__all__ = ["cam", "mm", "toma"]
