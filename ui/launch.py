"""The installed ``cap-studio`` command: start the dashboard on this machine only.

``cap-studio [streamlit options]`` runs ``streamlit run app.py --server.address 127.0.0.1`` in
the folder that holds the dashboard (:func:`cap_core.config.app_root`: the checkout, or the
``share/cap-studio`` folder of an installed package), so its settings (``.streamlit/config.toml``)
and embedded data are found wherever the command is started. A ``--server.address`` given on the
command line is refused: the server binds to localhost. The command becomes the server process
(``os.execv``), so a signal sent to ``cap-studio`` (Ctrl-C, a service manager's SIGTERM) reaches
streamlit itself and leaves no server behind.
"""

from __future__ import annotations

import os
import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Start the dashboard: this process becomes the streamlit server (it returns only 2, with one line,
    for a refused option or a missing script)."""
    from cap_core import config

    args = list(sys.argv[1:] if argv is None else argv)
    if any(a.startswith("--server.address") for a in args):
        print("error: the dashboard binds to 127.0.0.1 only; drop --server.address", file=sys.stderr)
        return 2
    root = config.app_root()
    app = root / "app.py"
    if not app.is_file():
        print(f"error: the dashboard script is missing ({app}); reinstall CAP Studio with `pip install .`",
              file=sys.stderr)
        return 2
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), "--server.address", "127.0.0.1", *args]
    os.chdir(root)
    os.execv(sys.executable, cmd)  # no return: the server replaces this process


if __name__ == "__main__":
    sys.exit(main())
