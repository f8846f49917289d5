"""Jinja skeletons of the generated files, shipped inside the wheel as `transpiler.templates`."""
