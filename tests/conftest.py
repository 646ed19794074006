import os
import sys

# make tests/casefiles.py importable as a plain module
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
