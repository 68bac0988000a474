"""A small regression package: config, data and model for the 76 training script."""

from .config import Config

__all__ = ["Config"]
