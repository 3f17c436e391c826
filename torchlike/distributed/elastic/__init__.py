"""torch.distributed.elastic: the error-recording pieces torchrun scripts import
(``torch.distributed.elastic.multiprocessing.errors.record``)."""
