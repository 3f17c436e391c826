"""Start-up hook directory for the drop-in runner (see sitecustomize.py)."""
