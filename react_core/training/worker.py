"""LoRA training on the CPU: the process ``finetune`` starts in the training environment (torch, transformers, peft).

It imports nothing else of ReAct Lab: it reads token examples (``tokens.jsonl``: ids and the ranges the loss is on)
and a recipe (``recipe.json``), and writes a PEFT adapter. The base model's float weights come from the packaged GGUF
itself (transformers dequantizes it); LoRA adapters go on every linear layer of the attention and the MLP; the loss
is on the model's own text only, and the vocabulary projection (262,144 words, most of a small model's arithmetic) is
computed only where there is loss. Deterministic for a seed on one machine: the example order, the initial adapter
and the data are fixed by it, and torch computes with a fixed number of threads.

It reports on stdout, one JSON object a line (``{"event": "step", ...}``), and keeps a checkpoint (adapter, optimizer
and position) every ``checkpoint_every`` steps and when it is told to stop (SIGTERM or SIGINT), so a run started again
with the same folder goes on where it stopped, exactly. Run it as a file, ``python react_core/training/worker.py --work
DIR`` (``finetune`` does): ``-m react_core.training.worker`` would import the engine's front door first.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

CHECKPOINT = "checkpoint"
ADAPTER = "peft"
BASE_CONFIG = "base-config"
# Every linear layer of a Gemma block: attention and MLP.
TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def say(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


class Stop:
    """SIGTERM / SIGINT ask for a stop at the end of the current step (a checkpoint is written first)."""

    def __init__(self) -> None:
        self.asked = False
        signal.signal(signal.SIGTERM, self._ask)
        signal.signal(signal.SIGINT, self._ask)

    def _ask(self, *_: Any) -> None:
        self.asked = True


def read_examples(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def schedule(step: int, total: int, warmup: int) -> float:
    """The learning rate's factor: linear warm-up, then cosine down to a tenth."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def order(n: int, epochs: int, seed: int) -> list[int]:
    """Every example once per epoch, shuffled by the seed."""
    rng = random.Random(seed)
    out: list[int] = []
    for _ in range(epochs):
        epoch = list(range(n))
        rng.shuffle(epoch)
        out += epoch
    return out


def load_model(recipe: dict[str, Any]) -> Any:
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    base = Path(recipe["base_model"])
    model = AutoModelForCausalLM.from_pretrained(str(base.parent), gguf_file=base.name, dtype=torch.float32)
    torch.manual_seed(recipe["seed"])
    config = LoraConfig(
        r=recipe["rank"],
        lora_alpha=recipe["alpha"],
        target_modules=list(TARGET_MODULES),
        lora_dropout=0.0,
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, config)


def example_loss(model: Any, example: dict[str, Any], bf16: bool) -> tuple[Any, int]:
    """The mean loss over the example's learned tokens, and their count. Only those positions go through the
    vocabulary projection."""
    import torch

    ids = torch.tensor([example["ids"]])
    positions = [i - 1 for a, b in example["learned"] for i in range(max(a, 1), b)]  # position i-1 predicts token i
    targets = torch.tensor([example["ids"][p + 1] for p in positions])
    inner = model.get_base_model()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        hidden = inner.model(input_ids=ids).last_hidden_state[0]
        logits = inner.lm_head(hidden[torch.tensor(positions)]).float()
    cap = getattr(inner.config, "final_logit_softcapping", None)
    if cap:
        logits = torch.tanh(logits / cap) * cap
    return torch.nn.functional.cross_entropy(logits, targets, reduction="sum"), len(positions)


def save_checkpoint(work: Path, model: Any, optimizer: Any, position: int, trained: dict[str, Any]) -> None:
    """Written beside and renamed into place: a stop mid-write leaves the previous checkpoint."""
    import torch
    from peft import get_peft_model_state_dict

    partial = work / f".{CHECKPOINT}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    torch.save(
        {
            "adapter": get_peft_model_state_dict(model),
            "optimizer": optimizer.state_dict(),
            "position": position,
            "trained": trained,
        },
        partial / "state.pt",
    )
    final = work / CHECKPOINT
    shutil.rmtree(final, ignore_errors=True)
    os.replace(partial, final)


def load_checkpoint(work: Path, model: Any, optimizer: Any) -> tuple[int, dict[str, Any]]:
    import torch
    from peft import set_peft_model_state_dict

    path = work / CHECKPOINT / "state.pt"
    if not path.is_file():
        return 0, {"tokens": 0, "learned_tokens": 0, "seconds": 0.0, "loss_sum": 0.0}
    state = torch.load(path, weights_only=False)
    set_peft_model_state_dict(model, state["adapter"])
    optimizer.load_state_dict(state["optimizer"])
    return int(state["position"]), dict(state["trained"])


def save_adapter(work: Path, model: Any) -> None:
    """The PEFT adapter, and the base model's config as llama.cpp's converter reads it (a model loaded from GGUF
    names no architecture and says it is quantized)."""
    model.save_pretrained(str(work / ADAPTER))
    config = model.get_base_model().config.to_dict()
    config.pop("quantization_config", None)
    config["architectures"] = [type(model.get_base_model()).__name__]
    (work / BASE_CONFIG).mkdir(exist_ok=True)
    (work / BASE_CONFIG / "config.json").write_text(json.dumps(config, indent=1, default=str), encoding="utf-8")


def train(work: Path) -> int:
    import torch

    recipe = json.loads((work / "recipe.json").read_text(encoding="utf-8"))
    torch.set_num_threads(int(recipe.get("threads") or os.cpu_count() or 1))
    torch.use_deterministic_algorithms(True, warn_only=True)
    examples = read_examples(work / "tokens.jsonl")
    plan = order(len(examples), recipe["epochs"], recipe["seed"])
    batch = recipe["batch"]
    steps = math.ceil(len(plan) / batch)
    say("loading", examples=len(examples), steps=steps)
    model = load_model(recipe)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=recipe["learning_rate"], weight_decay=0.0)
    position, trained = load_checkpoint(work, model, optimizer)
    # The CPU time and peak memory of the processes before a resume, carried by the checkpoint as the wall time is:
    # this process's own resource usage would leave out all the runs that came before a Stop.
    cpu_before, peak_before = float(trained.get("cpu_seconds", 0.0)), int(trained.get("peak_mb", 0))

    def used() -> tuple[float, int]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return round(cpu_before + usage.ru_utime + usage.ru_stime, 1), max(peak_before, round(usage.ru_maxrss / 1024))

    if position:
        say("resumed", step=position // batch, steps=steps, cpu_seconds=cpu_before)
    stop = Stop()
    warmup = max(1, int(steps * recipe["warmup"]))
    model.train()
    while position < len(plan):
        step = position // batch
        started = time.perf_counter()
        for group in optimizer.param_groups:
            group["lr"] = recipe["learning_rate"] * schedule(step, steps, warmup)
        chosen = plan[position : position + batch]
        counted = sum(sum(b - max(a, 1) for a, b in examples[i]["learned"]) for i in chosen)
        total = 0.0
        for i in chosen:
            loss, _ = example_loss(model, examples[i], recipe["bf16"])
            (loss / max(1, counted)).backward()
            total += float(loss)
            trained["tokens"] += len(examples[i]["ids"])
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        position += len(chosen)
        trained["learned_tokens"] += counted
        trained["loss_sum"] += total
        trained["seconds"] += time.perf_counter() - started
        say(
            "step",
            step=step + 1,
            steps=steps,
            loss=round(total / max(1, counted), 4),
            tokens=trained["tokens"],
            seconds=round(trained["seconds"], 1),
        )
        last = position >= len(plan)
        if stop.asked or last or (step + 1) % recipe["checkpoint_every"] == 0:
            trained["cpu_seconds"], trained["peak_mb"] = used()
            save_checkpoint(work, model, optimizer, position, trained)
        if stop.asked and not last:
            say("stopped", step=step + 1, steps=steps, cpu_seconds=trained["cpu_seconds"])
            return 3
    save_adapter(work, model)
    cpu_seconds, peak_mb = used()
    say(
        "trained",
        steps=steps,
        tokens=trained["tokens"],
        learned_tokens=trained["learned_tokens"],
        seconds=round(trained["seconds"], 1),
        cpu_seconds=cpu_seconds,
        peak_mb=peak_mb,
        torch=torch.__version__,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", required=True, type=Path, help="the folder with recipe.json and tokens.jsonl")
    args = parser.parse_args(argv)
    try:
        return train(args.work)
    except ImportError as e:
        say("error", message=f"the training environment lacks {e.name}: make finetune-env")
        return 2


if __name__ == "__main__":
    sys.exit(main())
