print("relay-bench: being written")
