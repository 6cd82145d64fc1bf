"""rulepress compiler: YAML content and effect DSL to playable tables."""
