"""tirxc: TIRx kernel files (.tx) to CUDA (.cu) and a CuPy launcher."""

__version__ = "0.1.0"


def data_text(package: str, name: str) -> str:
    """A data file shipped in `transpiler.grammar` / `transpiler.templates`.

    Installed, those are packages of the wheel; in a source checkout used
    without installing (PYTHONPATH=.), they are the top-level folders.
    Plain files are read directly (importlib.resources costs more to import
    than the rest of a small run); anything else, a zipped install for one,
    goes through importlib.resources.
    """
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.join(here, package, name)
    if os.path.isfile(installed):
        return _read(installed)
    checkout = os.path.join(os.path.dirname(here), package)
    if os.path.isfile(os.path.join(checkout, "__init__.py")) and os.path.isfile(os.path.join(checkout, name)):
        return _read(os.path.join(checkout, name))

    from importlib import resources
    from pathlib import Path

    try:
        return resources.files(f"transpiler.{package}").joinpath(name).read_text(encoding="utf-8")
    except ModuleNotFoundError:
        return (Path(__file__).resolve().parent.parent / package / name).read_text(encoding="utf-8")


def cache_root() -> str:
    """The folder of what tirxc keeps between runs and can always make again (compiled
    templates, built simulators): $TIRXC_CACHE, else tirxc's folder of the user's cache."""
    import os

    return os.environ.get("TIRXC_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                         os.path.expanduser("~/.cache"), "tirxc")


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()
