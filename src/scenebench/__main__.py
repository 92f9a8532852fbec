from scenebench.cli import main

main()
