"""The Lark grammar of `.tx` files, shipped inside the wheel as `transpiler.grammar`."""
