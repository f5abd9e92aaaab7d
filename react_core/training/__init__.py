"""Fine-tuning the on-device model on ReAct trajectories (the paper's Figure 3, on a CPU): trajectories from gold
annotations, from a person's runs or from a teacher model, as the exact text the app sends; LoRA training in a
training environment of its own (``worker``), and the adapter as a GGUF file llama.cpp loads on the packaged model.
Importing this package loads nothing: the worker runs where torch is, the rest where the app is."""
