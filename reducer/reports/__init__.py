"""What a reduction or a batch tells people: the batch's records and buckets, their Markdown, JSON and HTML
reports, and issue.md."""
