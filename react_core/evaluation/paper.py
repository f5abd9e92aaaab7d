"""The ReAct paper's Table 1, to set our figures beside: its HotpotQA and FEVER columns. Imports nothing.

Yao et al. 2022, Table 1 (PaLM-540B, 500 dev questions or claims each): HotpotQA exact match, FEVER accuracy. ReAct
with GPT-3 (text-davinci-002) scored 30.8 on HotpotQA (Table 5).
"""

__all__ = ["PAPER_FEVER_ACC", "PAPER_HOTPOTQA_EM", "STRATEGY_LABELS"]

PAPER_HOTPOTQA_EM = {
    "standard": 28.7,
    "cot": 29.4,
    "cot-sc": 33.4,
    "act": 25.7,
    "react": 27.4,
    "cot-sc-react": 34.2,  # CoT-SC -> ReAct
    "react-cot-sc": 35.1,  # ReAct -> CoT-SC
}
PAPER_FEVER_ACC = {
    "standard": 57.1,
    "cot": 56.3,
    "cot-sc": 60.4,
    "act": 58.9,
    "react": 60.9,
    "cot-sc-react": 64.6,
    "react-cot-sc": 62.0,
}
STRATEGY_LABELS = {
    "standard": "Standard",
    "cot": "CoT",
    "cot-sc": "CoT-SC",
    "act": "Act",
    "react": "ReAct",
    "cot-sc-react": "CoT-SC → ReAct",
    "react-cot-sc": "ReAct → CoT-SC",
}
