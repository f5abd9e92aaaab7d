"""The ReAct paper's HotpotQA results, to set our figures beside. Imports nothing.

Yao et al. 2022, Table 1 (PaLM-540B, exact match on 500 dev questions). ReAct with GPT-3 (text-davinci-002)
scored 30.8 (Table 5).
"""

PAPER_MODEL = "PaLM-540B"
PAPER_HOTPOTQA_EM = {
    "standard": 28.7,
    "cot": 29.4,
    "cot-sc": 33.4,
    "act": 25.7,
    "react": 27.4,
    "cot-sc-react": 34.2,  # CoT-SC -> ReAct
    "react-cot-sc": 35.1,  # ReAct -> CoT-SC
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
