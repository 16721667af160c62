"""cranfield's version, in a module every layer may import (the front door re-exports it)."""

__version__ = "0.1.0"
