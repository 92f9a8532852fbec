"""SURPRISE3D (Huang et al. 2025): 3D reasoning segmentation on ScanNet++ scenes.

Modules: ``annotations`` (official JSON, stable sample ids), ``scenes`` (``.pth``/``.npz`` point
clouds), ``predictions`` (JSONL/Parquet prediction records), ``scorer`` (engine glue, results),
``writer`` (emit the official formats), ``cli`` (``scenebench score|validate surprise3d``).
"""
