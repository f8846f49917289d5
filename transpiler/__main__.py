from transpiler.cli.main import main

main()
