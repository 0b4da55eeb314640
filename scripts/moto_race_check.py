"""Shows why scripts/moto_patches.py serialises moto's write handlers (issue 24).

Eight threads race conditional PutItems on the same version, 150 rounds, with the server's threads
preempted often (as on a loaded 2-CPU machine). Real DynamoDB lets exactly one win each round.
`python3 scripts/moto_race_check.py` (moto as it ships) vs `PATCH=1 python3 scripts/moto_race_check.py`.
"""
import logging
import os
import sys
import threading

import boto3
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
logging.getLogger("werkzeug").setLevel(logging.WARNING)
sys.setswitchinterval(1e-6)  # preempt often: what a loaded 2-CPU machine does to the server's threads
from moto.server import ThreadedMotoServer
import moto_patches
if os.environ.get('PATCH') == '1': moto_patches.apply()
s = ThreadedMotoServer(ip_address='127.0.0.1', port=5123, verbose=False); s.start()
c = lambda: boto3.client('dynamodb', endpoint_url='http://127.0.0.1:5123', region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='x')
d = c()
d.create_table(TableName='t', KeySchema=[{'AttributeName':'pk','KeyType':'HASH'}], AttributeDefinitions=[{'AttributeName':'pk','AttributeType':'S'}], BillingMode='PAY_PER_REQUEST')
clients = [c() for _ in range(8)]
double = 0
for r in range(150):
    d.put_item(TableName='t', Item={'pk':{'S':f'r{r}'}, 'version':{'N':'1'}})
    wins = []
    def w(i):
        try:
            clients[i].put_item(TableName='t', Item={'pk':{'S':f'r{r}'}, 'version':{'N':'2'}}, ConditionExpression='version = :v', ExpressionAttributeValues={':v':{'N':'1'}}); wins.append(i)
        except Exception: pass
    ts = [threading.Thread(target=w, args=(i,)) for i in range(8)]
    [t.start() for t in ts]; [t.join() for t in ts]
    if len(wins) > 1: double += 1
print('patched' if os.environ.get('PATCH')=='1' else 'unpatched', 'rounds with two or more winners:', double, 'of 150')
s.stop()
