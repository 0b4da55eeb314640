"""Adapters for common training loops. Each module imports its framework, so import only the one you use:

    from trainwatch.integrations.huggingface import TrainwatchCallback   # transformers.Trainer
    from trainwatch.integrations.lightning import TrainwatchCallback     # lightning / pytorch_lightning
"""
