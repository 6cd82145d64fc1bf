"""rulepress runtime: plays compiled game tables for people, bots and simulations."""
