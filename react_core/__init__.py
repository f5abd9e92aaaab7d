"""ReAct Lab's engine: traces, action formats, the loop, providers, tools, knowledge, evaluation and the CLI.

UI-free: nothing in this package imports Streamlit (a test checks it). Importing the package is cheap; the loop
and its parts load when used.
"""

from react_core.base.trace import Action, Exchange, Observation, Source, Step, Trace, Usage

__all__ = ["Action", "Observation", "Source", "Step", "Trace", "Exchange", "Usage"]
__version__ = "0.1.0"
