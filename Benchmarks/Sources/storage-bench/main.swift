print("storage-bench: being written")
