print("wots: the CLI is being written")
