"""The JSON Schemas of content files, shipped as package data (`rulepress.schemas`)."""
