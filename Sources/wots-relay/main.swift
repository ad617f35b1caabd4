print("wots-relay: not yet")
