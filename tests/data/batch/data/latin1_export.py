# Mojibake from a bad export: not UTF-8
x = "ÿþý"
raise ValueError(x)
