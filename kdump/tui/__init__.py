"""``kdump browse``'s terminal interface (Textual): it draws what kdump/ops/browse gives.

A floor of its own, above render and below cli: the one place textual is imported.
Every string from the data (topic and file names, keys, values, headers, finding
details) reaches a widget as a rich ``Text`` made inert (:func:`kdump.textsafe.inert`),
never as markup: no byte of the data drives the terminal.
"""
